/**
 * A saved plan whose apply stopped part-way (Ctrl-C, a failed step, a lost runner) is stale when
 * run again: its own creates are live now, and a saved plan is never applied over changes it did
 * not read. The refusal says who may have made them — this plan's earlier apply, or someone else —
 * how many of its steps are live, and what finishes the job (found by the review: it blamed
 * "someone else" for the plan's own creates).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply } from '../../src/apply/index.js';
import { loadSavedPlan } from '../../src/saved-plan/saved-plan.js';
import { applyManifests, openClient, runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'saved-plan-rerun-token-51b0';
const org = (repos: string[]) =>
  `apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n${repos.map((r) => `    - {name: ${r}}`).join('\n')}\n`;

describe('running a saved plan again after its apply stopped part-way', () => {
  const suite = useSuiteEmulator(TOKEN, 'saved-plan-rerun', async (emulator) => {
    mkdirSync(dir);
    writeFileSync(join(dir, 'org.yaml'), org(['app']));
    await applyManifests(emulator.url, TOKEN, [dir]);
  });
  const dir = join(suite.dir, 'manifests');
  const planFile = join(suite.dir, 'plan.json');

  it('is refused as stale, naming how many of its steps are live and what finishes the job', async () => {
    writeFileSync(join(dir, 'org.yaml'), org(['app', 'web', 'api', 'docs']));
    expect((await runCli(['plan', dir, '--out', planFile], { env: suite.env })).code).toBe(0);
    // The apply stops after two of its three creates.
    const saved = await loadSavedPlan(planFile);
    expect(saved.steps.map((s) => s.address)).toEqual(['repo:api', 'repo:docs', 'repo:web']);
    const client = openClient(suite.emulator.url, TOKEN);
    const partly = await apply({ ...saved, steps: saved.steps.slice(0, 2) }, client).finally(() => client.close());
    expect(partly.ok).toBe(true);

    suite.emulator.clearRequestLog();
    const again = await runCli(['apply', planFile, '--auto-approve'], { env: suite.env });
    expect(again.code).toBe(1);
    expect(suite.emulator.requestLog.filter((e) => e.method !== 'GET')).toEqual([]);
    expect(again.stderr).toContain(
      'the saved plan is stale: live state changed since it was made (by someone else, or by an earlier apply of this plan that stopped part-way: 2 of its 3 steps are live already):',
    );
    expect(again.stderr).toMatch(/- repo:api: created since the plan \(uid \S+\)/);
    expect(again.stderr).not.toContain('someone else since');
    expect(again.stderr).toContain(
      'Nothing was applied: a saved plan is never applied over changes it did not read. To finish, plan again (`platform-sync plan <paths> --out plan.json`, then `apply plan.json`; or `platform-sync apply <paths>`): the new plan holds exactly what is left.',
    );

    // As it says: a new plan holds the one create left, and applying it finishes the job.
    expect((await runCli(['plan', dir, '--out', planFile], { env: suite.env })).code).toBe(0);
    expect((await loadSavedPlan(planFile)).steps.map((s) => s.address)).toEqual(['repo:web']);
    const finish = await runCli(['apply', planFile, '--auto-approve'], { env: suite.env });
    expect(finish.code, finish.stderr).toBe(0);
    expect(finish.stdout).toContain('✓ create repo:web');
  });
});
