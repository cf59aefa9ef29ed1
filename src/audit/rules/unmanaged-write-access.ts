/** `unmanaged-write-access` (medium): a live binding the manifests do not declare grants a write role. */
import type { AuditRule } from '../types.js';

export const rule: AuditRule = {
  id: 'unmanaged-write-access',
  title: 'A role binding the manifests do not declare grants write access',
  help: 'Declare the binding in the manifests if it is wanted (so a pull request reviews it), or let platform-sync delete it: remove it from settings.ignore, or turn settings.prune on for role bindings.',
  severity: 'medium',
  check(facts) {
    return facts.bindings.flatMap((b) => {
      if (b.declared || !b.live || !facts.isWriteRole(b.role)) return [];
      return [{ rule: this.id, severity: this.severity, address: b.address, message: 'grants a write role, and the manifests do not declare it (ignored, or not pruned)' }];
    });
  },
};
