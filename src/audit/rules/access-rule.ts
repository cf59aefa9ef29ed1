/** `access-rule` (high): live breaks a rule of `org.accessRules` (DESIGN.md §4, §7 rev 6), naming the rule, the principal and how. */
import { describeViolation, judgeAccessRules } from '../../access/rules.js';
import type { AuditRule, Finding } from '../types.js';

export const rule: AuditRule = {
  id: 'access-rule',
  title: 'The live org breaks an access rule of the manifests',
  help: 'Each finding names the rule, the principal, the capabilities and the grants or escalation path that give them: remove the grant (or the escalating capability), or change the rule if the access is wanted. Plans that keep the org breaking it are refused.',
  severity: 'high',
  check(facts) {
    if (facts.accessRules.length === 0 || !facts.liveAccess) return [];
    const findings: Finding[] = [];
    const results = judgeAccessRules(facts.liveAccess, facts.accessRules);
    facts.accessRules.forEach((declared, i) => {
      const result = results[i]!;
      if (result.passed) return;
      const location = declared.source;
      if (result.violations.length === 0 || result.test === 'count') {
        findings.push({
          rule: this.id,
          severity: this.severity,
          address: result.scope,
          message: `access rule ${JSON.stringify(result.rule)} is broken: ${result.summary}`,
          location,
        });
      }
      for (const v of result.violations) {
        findings.push({
          rule: this.id,
          severity: this.severity,
          address: v.identity ?? v.principal,
          message: `access rule ${JSON.stringify(result.rule)} is broken: ${describeViolation(v, result.test)}`,
          location,
        });
      }
    });
    return findings;
  },
};
