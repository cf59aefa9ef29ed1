/** `eol-tags` (medium): a managed repo holds end-of-life (deprecated) tags. */
import type { AuditRule } from '../types.js';

/** Tag names shown in one finding before "and N more". */
const NAMES_SHOWN = 10;

export const rule: AuditRule = {
  id: 'eol-tags',
  title: 'A managed repo holds end-of-life tags',
  help: 'Move what pulls these tags to a supported one, then delete the end-of-life tags (they get no more fixes).',
  severity: 'medium',
  check(facts) {
    return facts.managedRepos.flatMap((repo) => {
      const eol = repo.tags
        .filter((t) => t.deprecated)
        .map((t) => t.name)
        .sort();
      if (eol.length === 0) return [];
      const shown =
        eol.slice(0, NAMES_SHOWN).join(', ') +
        (eol.length > NAMES_SHOWN ? ` and ${eol.length - NAMES_SHOWN} more` : '');
      return [
        {
          rule: this.id,
          severity: this.severity,
          address: repo.address,
          message: `${eol.length} end-of-life tag${eol.length === 1 ? '' : 's'}: ${shown}`,
          location: repo.location,
        },
      ];
    });
  },
};
