/**
 * The words of the manifest format that several declarations share, written once (issue 41):
 * the name pattern every named kind uses and the capabilities a custom role may hold (the service's
 * catalog, src/service). The field
 * declarations (kinds/declarations.ts), the manifest's own structure (manifest-declaration.ts)
 * and validate's messages read them from here; the emulator keeps its own, from its contract.
 */

import { CATALOG, isCatalogCapability } from '../service/catalog.js';
import { shortEnumValue } from '../util/service-enum.js';
import { didYouMean, nearestNames } from '../util/suggest.js';

/** Names of the org, groups, identities, roles, repos and identity providers (spec: Identity name pattern). */
export const NAME_PATTERN_SOURCE = '^[a-z0-9 ._-]{1,}$';

/** How a name field is described in the schema: `noun` names what it names ("group", "identity provider"). */
export function describeName(noun: string): string {
  return `Name of the ${noun}, unique among its siblings: lowercase letters, digits, spaces, ".", "_" and "-" (${NAME_PATTERN_SOURCE}).`;
}

/**
 * Capabilities a custom role may hold: the service's own catalog (DESIGN.md §2 rev 6), loaded as
 * data from src/service/capabilities.json — never a list of our own.
 */
export const CAPABILITIES: readonly string[] = CATALOG;

/** How a capability name is spelled (`repo.create`, `registry.entitlements.list`): what the schema checks before the catalog. */
export const CAPABILITY_NAME_PATTERN_SOURCE = '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$';

/** The catalog tiers of a repo, short (the manifest's spelling); the API names them `CATALOG_TIER_<X>`. */
export const CATALOG_TIERS = ['APPLICATION', 'BASE', 'FIPS', 'AI', 'DEVTOOLS', 'COMMERCIAL'] as const;

/** A repo alias: an image reference with a tag, as the service and its provider validate it. */
export const IMAGE_ALIAS_PATTERN_SOURCE = '^[a-zA-Z0-9_.\\-/]*[a-zA-Z0-9_.\\-]:[a-zA-Z0-9_.\\-]+$';

/** A sync mirror: a repository in a cloud registry, host[:port]/path (`acmeprod.azurecr.io/mirror`), or "" for none. */
export const MIRROR_PATTERN_SOURCE = '^$|^[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?(/[A-Za-z0-9._-]+)+$';

const NEAREST = 3;

/**
 * What is wrong with a capability a manifest names, or undefined when the catalog (or `alsoKnown`:
 * names live roles hold, which the service added after this catalog) has it. The message names
 * the nearest few names of the catalog, not all 153.
 */
export function unknownCapabilityMessage(
  name: string,
  owner: string,
  alsoKnown?: ReadonlySet<string>,
): string | undefined {
  if (isCatalogCapability(name) || alsoKnown?.has(name)) return undefined;
  const known = [...CATALOG, ...(alsoKnown ?? [])];
  const nearest = nearestNames(name, known, NEAREST);
  return (
    `unknown capability ${JSON.stringify(name)} in ${owner}; expected one of the service's ${CATALOG.length} capabilities${didYouMean(name, known)}` +
    ` — the nearest: ${nearest.join(', ')}`
  );
}

const CATALOG_TIER_PREFIX = 'CATALOG_TIER_';

/**
 * A catalog tier in the one spelling the API is sent (`CATALOG_TIER_FIPS`), read from either
 * spelling; the zero value, `UNKNOWN` or "" is unset (undefined). Anything else as it was.
 */
export function fullCatalogTier(value: unknown): unknown {
  const short = shortEnumValue(value, CATALOG_TIER_PREFIX);
  return typeof short === 'string' ? `${CATALOG_TIER_PREFIX}${short}` : short;
}

/** A catalog tier as a manifest spells it: short (`FIPS`). */
export function shortCatalogTier(value: unknown): unknown {
  return shortEnumValue(value, CATALOG_TIER_PREFIX);
}
