/** `sync-expiring` (high when past, medium within `--expiry-days`): a repo's catalog entitlement at its end. */
import { DAY_MS, type AuditRule, type Finding, daysText } from '../types.js';

export const rule: AuditRule = {
  id: 'sync-expiring',
  title: "A repo's catalog sync entitlement has ended or ends soon",
  help: "Renew the entitlement and set the repo's syncConfig.expiration to its new end; images stop syncing from the catalog when it passes.",
  severity: 'high',
  check(facts, options) {
    return facts.entitlements.flatMap((e): Finding[] => {
      const at = Date.parse(e.expiration);
      const where = e.location ? { location: e.location } : {};
      if (Number.isNaN(at))
        return [
          {
            rule: this.id,
            severity: 'medium',
            address: e.address,
            message: `syncConfig.expiration ${JSON.stringify(e.expiration)} is not a time (RFC 3339 expected): when syncing ends cannot be told`,
            ...where,
          },
        ];
      if (at <= options.now)
        return [
          {
            rule: this.id,
            severity: 'high',
            address: e.address,
            message: `the catalog sync entitlement ended ${daysText(Math.floor((options.now - at) / DAY_MS))} ago (${e.expiration})`,
            ...where,
          },
        ];
      if (at - options.now <= options.expiryDays * DAY_MS)
        return [
          {
            rule: this.id,
            severity: 'medium',
            address: e.address,
            message: `the catalog sync entitlement ends in ${daysText(Math.ceil((at - options.now) / DAY_MS))} (${e.expiration}), within ${options.expiryDays}`,
            ...where,
          },
        ];
      return [];
    });
  },
};
