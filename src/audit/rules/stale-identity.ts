/** `stale-identity` (medium): an identity not seen for longer than `--stale-days` (or never, and older). */
import { DAY_MS, type AuditRule, daysText } from '../types.js';

export const rule: AuditRule = {
  id: 'stale-identity',
  title: 'An identity has not been used for longer than --stale-days',
  help: 'Remove the identity (and its role bindings) from the manifests if nothing uses it any more; an unused identity with roles is access nobody watches.',
  severity: 'medium',
  check(facts, options) {
    const limit = options.staleDays * DAY_MS;
    return facts.identities.flatMap((i) => {
      if (!i.live) return []; // not created yet: nothing to have been seen
      const seen = i.live.lastSeenTime !== undefined ? Date.parse(i.live.lastSeenTime) : NaN;
      const created = i.live.createTime !== undefined ? Date.parse(i.live.createTime) : NaN;
      const since = Number.isNaN(seen) ? created : seen;
      if (Number.isNaN(since) || options.now - since <= limit) return [];
      const days = Math.floor((options.now - since) / DAY_MS);
      const message = Number.isNaN(seen)
        ? `never seen, and created ${daysText(days)} ago (more than ${options.staleDays})`
        : `last seen ${daysText(days)} ago (${i.live.lastSeenTime}), more than ${options.staleDays}`;
      return [
        {
          rule: this.id,
          severity: this.severity,
          address: i.address,
          message,
          ...(i.location ? { location: i.location } : {}),
        },
      ];
    });
  },
};
