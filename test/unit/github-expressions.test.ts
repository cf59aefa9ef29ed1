/**
 * The stand-in for GitHub's expression evaluator that the workflow tests run on
 * (test/support/github-expressions.ts): it must be as strict as GitHub, or a workflow that fails
 * on a runner passes here — above all `hashFiles`, which sees only GITHUB_WORKSPACE (issue 60).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluate, hashFiles, interpolate, shouldRun, type ExpressionScope } from '../support/github-expressions.js';

describe('GitHub expressions, as the runner evaluates them', () => {
  const temp = mkdtempSync(join(tmpdir(), 'platform-sync-expressions-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));
  const workspace = join(temp, 'workspace');
  const outside = join(temp, 'runner-temp');
  mkdirSync(join(workspace, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(workspace, 'invites.jsonl'), '{}\n');
  writeFileSync(join(workspace, 'sub', 'a.txt'), 'a');
  writeFileSync(join(outside, 'invite-codes.jsonl.gpg'), 'sealed');
  const scope = (
    status: ExpressionScope['status'] = 'success',
    vars: Record<string, string> = {},
  ): ExpressionScope => ({
    contexts: {
      vars,
      runner: { temp: outside },
      github: { event_name: 'push', event: { pull_request: { labels: [{ name: 'x' }] } } },
      steps: { plan: { outputs: { 'plan-json': '' } } },
    },
    status,
    workspace,
  });

  it('hashFiles sees only files inside the workspace: a path under runner.temp matches nothing', () => {
    expect(hashFiles(workspace, ['invites.jsonl'])).toMatch(/^[0-9a-f]{64}$/);
    expect(hashFiles(workspace, [join(workspace, 'invites.jsonl')])).toBe(hashFiles(workspace, ['invites.jsonl']));
    expect(hashFiles(workspace, ['**/*.txt'])).not.toBe('');
    expect(hashFiles(workspace, [join(outside, 'invite-codes.jsonl.gpg')])).toBe('');
    expect(evaluate("hashFiles(format('{0}/invite-codes.jsonl.gpg', runner.temp)) != ''", scope())).toBe(false);
    expect(evaluate("hashFiles('missing.jsonl')", scope())).toBe('');
  });

  it('a step runs on success unless its condition names a status function; always() runs after a failure', () => {
    expect(shouldRun(undefined, scope('failure'))).toBe(false);
    expect(shouldRun("vars.KEY != ''", scope('failure', { KEY: 'k' }))).toBe(false);
    expect(shouldRun("always() && vars.KEY != ''", scope('failure', { KEY: 'k' }))).toBe(true);
    expect(shouldRun("${{ always() && hashFiles('invites.jsonl') != '' }}", scope('failure'))).toBe(true);
    expect(shouldRun("steps.plan.outputs.plan-json != ''", scope())).toBe(false);
  });

  it('&& and || give an operand, comparisons ignore the case of strings, unknown names are errors', () => {
    expect(evaluate("vars.KEY != '' && format('{0}/x', runner.temp) || ''", scope('success', { KEY: 'k' }))).toBe(
      `${outside}/x`,
    );
    expect(evaluate("vars.KEY != '' && format('{0}/x', runner.temp) || ''", scope())).toBe('');
    expect(evaluate("github.event_name == 'PUSH'", scope())).toBe(true);
    expect(evaluate("contains(github.event.pull_request.labels.*.name, 'x')", scope())).toBe(true);
    expect(interpolate('a ${{ vars.MISSING }} b', scope())).toBe('a  b');
    expect(() => evaluate('nosuch.context', scope())).toThrow('unknown context');
    expect(() => evaluate('nosuch()', scope())).toThrow('unknown function');
  });
});
