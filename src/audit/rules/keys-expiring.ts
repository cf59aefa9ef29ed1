/** `keys-expiring` (high when expired, medium within `--expiry-days`): static keys at the end of their life. */
import { DAY_MS, type AuditRule, type Finding, daysText } from '../types.js';

export const rule: AuditRule = {
  id: 'keys-expiring',
  title: 'Static keys of an identity have expired or expire soon',
  help: 'Rotate the signing keys: publish the new JWKS in staticKeys.issuerKeys with a later staticKeys.expirationTime, and retire the old keys once every signer uses the new ones.',
  severity: 'high',
  check(facts, options) {
    return facts.identities.flatMap((i): Finding[] => {
      const expiration = i.fields.staticKeys?.expirationTime;
      if (expiration === undefined) return [];
      const at = Date.parse(expiration);
      const where = i.location ? { location: i.location } : {};
      if (Number.isNaN(at))
        return [
          {
            rule: this.id,
            severity: 'medium' as const,
            address: i.address,
            message: `staticKeys.expirationTime ${JSON.stringify(expiration)} is not a time (RFC 3339 expected): when the keys expire cannot be told`,
            ...where,
          },
        ];
      if (at <= options.now)
        return [
          {
            rule: this.id,
            severity: 'high' as const,
            address: i.address,
            message: `static keys expired ${daysText(Math.floor((options.now - at) / DAY_MS))} ago (${expiration})`,
            ...where,
          },
        ];
      if (at - options.now <= options.expiryDays * DAY_MS)
        return [
          {
            rule: this.id,
            severity: 'medium' as const,
            address: i.address,
            message: `static keys expire in ${daysText(Math.ceil((at - options.now) / DAY_MS))} (${expiration}), within ${options.expiryDays}`,
            ...where,
          },
        ];
      return [];
    });
  },
};
