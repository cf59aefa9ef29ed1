/** `unmanaged-write-access` (medium): a live binding the manifests do not declare grants a write role. */
import type { AuditRule } from '../types.js';

export const rule: AuditRule = {
  id: 'unmanaged-write-access',
  title: 'A role binding the manifests do not declare grants write access',
  help: 'Declare the binding in the manifests if it is wanted (so a pull request reviews it); otherwise let platform-sync delete it — each finding says what keeps it (an ignore glob, or pruning turned off).',
  severity: 'medium',
  check(facts) {
    return facts.bindings.flatMap((b) => {
      if (b.declared || !b.live || !facts.isWriteRole(b.role)) return [];
      const why = b.undeclaredBecause;
      const because =
        why === undefined || why === 'not-pruned'
          ? 'settings.prune is off for role bindings, so apply keeps it'
          : why === 'pruned-next-apply'
            ? 'the next apply deletes it (role bindings are pruned); until then it grants write'
            : `settings.ignore leaves it alone (glob ${why.ignoredBy}); remove the glob to let apply delete it`;
      return [
        {
          rule: this.id,
          severity: this.severity,
          address: b.address,
          message: `grants a write role, and the manifests do not declare it: ${because}`,
        },
      ];
    });
  },
};
