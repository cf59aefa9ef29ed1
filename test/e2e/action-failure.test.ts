/**
 * The Action's entry when its run fails in a way the run does not report itself (here: GitHub
 * refusing the plan comment with a 500): the message is written as every other line of the log
 * is — redacted of the job's secrets and escaped, so it starts no workflow command (DESIGN.md §8;
 * found by the review: src/action/main.ts wrote `err.message` raw). A real process: main.ts is
 * what `node dist/src/action/main.js` runs, and it writes to the process's own stderr.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub, runnerCommands } from '../support/action-step.js';
import { makeTempDir, REPO_ROOT } from './cli-harness.js';

const TOKEN = 'action-failure-owner-token-93c4';

describe("the Action's entry when the run fails", () => {
  const temp = makeTempDir('action-failure');
  const github = new FakeGitHub();
  beforeAll(() => github.start());
  afterAll(async () => {
    await github.close();
    temp.remove();
  });

  it('writes the failure redacted and escaped, and fails the step', async () => {
    github.status = 500;
    mkdirSync(join(temp.dir, 'runner'));
    const event = join(temp.dir, 'event.json');
    writeFileSync(event, JSON.stringify({ pull_request: { number: 3, head: { sha: 'feedbeef00' } } }));
    const env = {
      NO_COLOR: '1',
      PATH: process.env.PATH ?? '',
      PLATFORM_API_URL: 'http://127.0.0.1:9',
      PLATFORM_TOKEN: TOKEN,
      PS_COMMAND: 'plan',
      PS_PATHS: join(temp.dir, 'no-manifests'),
      PS_COMMENT: 'true',
      PS_GITHUB_TOKEN: 'gh-token-for-test',
      // What reaches the message (the request's path): a line break and a command, and the token.
      GITHUB_REPOSITORY: `acme/${TOKEN}\n::warning title=INJECTED::x`,
      GITHUB_API_URL: github.url,
      GITHUB_EVENT_PATH: event,
      GITHUB_OUTPUT: join(temp.dir, 'output'),
      RUNNER_TEMP: join(temp.dir, 'runner'),
    };
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'src', 'action', 'main.js')], {
      cwd: temp.dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(1);
    expect(stderr).toContain('platform-sync action: GitHub API');
    expect(stderr).toContain('INJECTED');
    expect(stdout + stderr).not.toContain(TOKEN);
    expect(runnerCommands(stdout)).toEqual([]);
    expect(runnerCommands(stderr)).toEqual([]);
  });
});
