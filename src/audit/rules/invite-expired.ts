/** `invite-expired` (low): an expired invite still listed (it admits nobody, and clutters the org). */
import { DAY_MS, type AuditRule, type Finding, daysText } from '../types.js';

export const rule: AuditRule = {
  id: 'invite-expired',
  title: 'An expired invite is still listed',
  help: 'Delete it (apply prunes invites no member declares), or keep the member line: the next apply replaces an expired invite of a declared member.',
  severity: 'low',
  check(facts, options) {
    return facts.invites.flatMap((i): Finding[] => {
      const at = Date.parse(i.expirationTime);
      if (Number.isFinite(at) && at > options.now) return [];
      const ago = Number.isFinite(at) ? ` ${daysText(Math.floor((options.now - at) / DAY_MS))} ago` : '';
      return [
        {
          rule: this.id,
          severity: 'low',
          address: i.address,
          message: `the invite expired${ago} (${i.expirationTime}) and is still listed`,
        },
      ];
    });
  },
};
