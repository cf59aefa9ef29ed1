/**
 * Enums as the service sends them (issue 57; DESIGN.md §2 rev 6): read in full or short, the zero
 * value, `UNKNOWN` and "" unset; sent in full (a tier). And the service's catalog is the one a
 * custom role is checked against, with the nearest names, not all 153.
 */
import { describe, expect, it } from 'vitest';
import { readServicePrincipal } from '../../src/model/identity-relationships.js';
import {
  fullCatalogTier,
  shortCatalogTier,
  unknownCapabilityMessage,
  CAPABILITIES,
} from '../../src/model/vocabulary.js';

describe('enums read generously, sent exactly', () => {
  it('a catalog tier: either spelling is one value, sent in full; the zero value, UNKNOWN and "" are unset', () => {
    expect(fullCatalogTier('FIPS')).toBe('CATALOG_TIER_FIPS');
    expect(fullCatalogTier('CATALOG_TIER_FIPS')).toBe('CATALOG_TIER_FIPS');
    for (const unset of ['CATALOG_TIER_UNSPECIFIED', 'UNKNOWN', 'CATALOG_TIER_UNKNOWN', '', 'UNSPECIFIED'])
      expect(fullCatalogTier(unset), unset).toBeUndefined();
    expect(shortCatalogTier('CATALOG_TIER_DEVTOOLS')).toBe('DEVTOOLS');
    expect(shortCatalogTier(fullCatalogTier('AI'))).toBe('AI');
  });

  it('a service principal: short, its zero value unset', () => {
    expect(readServicePrincipal('SERVICE_PRINCIPAL_COSIGNED')).toBe('COSIGNED');
    expect(readServicePrincipal('INGESTER')).toBe('INGESTER');
    for (const unset of ['SERVICE_PRINCIPAL_UNSPECIFIED', 'UNKNOWN', ''])
      expect(readServicePrincipal(unset), unset).toBeUndefined();
  });

  it('a capability outside the catalog names the nearest few, never the 153; one live holds is known', () => {
    expect(CAPABILITIES).toHaveLength(153);
    for (const name of ['roles.update', 'identity_providers.scim.manage', 'registry.entitlements.list'])
      expect(unknownCapabilityMessage(name, 'role "r"')).toBeUndefined();
    const message = unknownCapabilityMessage('role_bindings.updte', 'role "r"')!;
    expect(message).toContain('did you mean "role_bindings.update"?');
    expect(message.split(', ').length).toBeLessThanOrEqual(3);
    expect(message).not.toContain('account_associations.create');
    expect(
      unknownCapabilityMessage('registry.future.scan', 'role "r"', new Set(['registry.future.scan'])),
    ).toBeUndefined();
  });
});
