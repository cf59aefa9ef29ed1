/**
 * The CLI in a plain `run:` step of a GitHub Actions job (GITHUB_ACTIONS=true, no Action around
 * it): what it prints is the job's log, so text from a pull request — a file name holding LF, CR,
 * `::` or `##[` — starts no workflow command there (DESIGN.md §8 rev 6). Outside Actions the
 * output is as it was.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, runCli } from './cli-harness.js';
import { runnerCommands } from '../support/action-step.js';

const HOSTILE_NAMES = [
  'x\n::warning title=INJECTED::x\n::stop-commands::pwn\n.yaml',
  '::error title=INJECTED::starts-a-line.yaml',
  'c\r::warning title=INJECTED::d.yaml',
  'e ##[warning]INJECTED.yaml',
  // Characters the runner's culture-aware comparison skips (found by the review).
  '\u00ad::error title=INJECTED::soft-hyphen.yaml',
  ':\u034f:error title=INJECTED::grapheme-joiner.yaml',
  'f #\u00ad#[warning]INJECTED.yaml',
];

describe('the CLI in a GitHub Actions job', () => {
  const temp = makeTempDir('cli-workflow-log');
  afterAll(() => temp.remove());

  it('prints no line the runner reads as a workflow command, whatever the file names say', async () => {
    const dir = join(temp.dir, 'm');
    mkdirSync(dir);
    for (const name of HOSTILE_NAMES)
      writeFileSync(
        join(dir, name),
        'apiVersion: platform-sync/v1\norg:\n  name: hostile\n  repos:\n    - {name: one, bogus: 1}\n',
      );
    const inActions = await runCli(['validate', dir], { env: { GITHUB_ACTIONS: 'true' } });
    expect(inActions.code).toBe(1);
    expect(inActions.stdout + inActions.stderr).toContain('INJECTED');
    expect(runnerCommands(inActions.stdout)).toEqual([]);
    expect(runnerCommands(inActions.stderr)).toEqual([]);
    // The same run outside Actions prints the names as they are (a terminal reads no commands).
    const outside = await runCli(['validate', dir]);
    expect(runnerCommands(outside.stdout + outside.stderr).length).toBeGreaterThan(0);
  });

  it('keeps a --format json document whole: its values read back as written, ##[ included', async () => {
    const dir = join(temp.dir, 'json');
    mkdirSync(dir);
    const description = 'look: ##[warning]INJECTED and ::error::x';
    writeFileSync(
      join(dir, 'org.yaml'),
      `apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n    - {name: one, description: "${description}"}\n`,
    );
    const run = await runCli(['plan', dir, '--emulator', '--bootstrap', '--format', 'json'], {
      cwd: dir,
      env: { GITHUB_ACTIONS: 'true' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(runnerCommands(run.stdout)).toEqual([]);
    const plan = JSON.parse(run.stdout) as { steps: { after?: { description?: string } }[] };
    expect(plan.steps.map((s) => s.after?.description)).toContain(description);
  });
});
