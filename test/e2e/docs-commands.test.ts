/**
 * Every command the README and docs/ show in a shell block runs as shown (issue 40 item 8), in a
 * fresh directory with the package's examples, against the embedded emulator or a suite
 * emulator standing in for "a real API". A trailing `# …` comment says what the line shows:
 * "error" means exit 1; quoted output is looked for.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitArgs } from '../../src/action/run.js';
import { readDoc } from '../support/docs.js';
import { makeTempDir, REPO_ROOT, runCli, useSuiteEmulator } from './cli-harness.js';

/** The shell blocks of a page that run platform-sync, each as its lines. */
function shellBlocks(page: string): string[][] {
  return [...readDoc(page).matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)]
    .map((m) =>
      m[1]!
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    )
    .filter((b) => b.some((l) => /^(bin\/|npx --no-install )?platform-sync\b/.test(l)));
}

interface Line {
  args: string[];
  comment: string;
}

/** A command line: `platform-sync …` (or bin/…) and its trailing comment; other lines are set-up. */
function parse(line: string): Line | { env: [string, string] } | undefined {
  const env = /^export (\w+)=(\S+)/.exec(line);
  if (env) return { env: [env[1]!, env[2]!] };
  const m = /^(?:bin\/|npx --no-install )?platform-sync (.*?)(?:\s+#\s*(.*))?$/.exec(line);
  if (!m) return undefined; // npm run build, rm -r …: the test's own directory stands in for them
  return { args: splitArgs(m[1]!), comment: m[2] ?? '' };
}

async function runBlock(
  block: string[],
  cwd: string,
  env: Record<string, string>,
  rewrite: (args: string[]) => string[] = (a) => a,
): Promise<string[]> {
  const ran: string[] = [];
  for (const raw of block) {
    const line = parse(raw);
    if (!line) continue;
    if ('env' in line) {
      // A made-up secret is kept; the token and URL come from the test's emulator.
      if (line.env[0].startsWith('PLATFORM_SYNC_SECRET_')) env[line.env[0]] = line.env[1];
      continue;
    }
    const run = await runCli(rewrite(line.args), { cwd, env });
    const wantsError = /^error\b/i.test(line.comment);
    expect(run.code, `${raw}\n${run.stdout}${run.stderr}`).toBe(wantsError ? 1 : 0);
    const quoted = /^([A-Z~+][^…]*?)(?:[.…]|$)/.exec(line.comment)?.[1];
    if (quoted && !wantsError) expect(run.stdout, raw).toContain(quoted.trim());
    ran.push(raw);
  }
  return ran;
}

describe('the commands of the README and docs/', () => {
  const suite = useSuiteEmulator('docs-commands-token-6b2d', 'docs-commands');

  it("README: the quick start's commands, then 'against a real API'", async () => {
    const temp = makeTempDir('docs-quick-start');
    try {
      cpSync(join(REPO_ROOT, 'examples'), join(temp.dir, 'examples'), { recursive: true });
      const blocks = shellBlocks('README.md');
      const offline = blocks.find((b) => b.some((l) => l.startsWith('bin/platform-sync validate examples/acme')));
      const real = blocks.find((b) => b.some((l) => l.startsWith('export PLATFORM_API_URL')));
      const exported = join(temp.dir, 'exported');
      const ran = await runBlock(offline!, temp.dir, {}, (args) =>
        args.map((a) => (a === '/tmp/acme-export' ? exported : a)),
      );
      expect(ran.length).toBeGreaterThanOrEqual(6);
      expect(readFileSync(join(exported, 'org.yaml'), 'utf8')).toContain('name: acme');
      // "A real API": the suite's emulator, the example org as manifests/.
      cpSync(join(REPO_ROOT, 'examples', 'acme'), join(temp.dir, 'manifests'), { recursive: true });
      expect(
        (await runCli(['apply', 'manifests/', '--bootstrap', '--auto-approve'], { cwd: temp.dir, env: suite.env }))
          .code,
      ).toBe(0);
      expect(await runBlock(real!, temp.dir, { ...suite.env })).toHaveLength(1);
    } finally {
      temp.remove();
    }
  });

  it("README: in your own repository, init's starter validates and plans", async () => {
    const temp = makeTempDir('docs-own-repository');
    try {
      const own = shellBlocks('README.md').find((b) => b.some((l) => l.startsWith('npm install')));
      expect(await runBlock(own!, temp.dir, {})).toHaveLength(3);
      expect(readFileSync(join(temp.dir, 'manifests', 'org.yaml'), 'utf8')).toContain('apiVersion: platform-sync/v1');
    } finally {
      temp.remove();
    }
  });

  it('docs/manifests.md: the members example, planned, applied with --invite-codes, pending', async () => {
    const temp = makeTempDir('docs-members');
    try {
      mkdirSync(join(temp.dir, 'manifests'));
      const yaml = /### Members and invites[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readDoc('manifests.md'))![1]!;
      writeFileSync(join(temp.dir, 'manifests', 'org.yaml'), yaml.replace('name: acme', 'name: members-doc'));
      expect(
        (
          await runCli(['apply', 'manifests/', '--bootstrap', '--auto-approve', '--invite-codes', 'invites.jsonl'], {
            cwd: temp.dir,
            env: suite.env,
          })
        ).code,
      ).toBe(0);
      // The page's commands against an org whose members were just invited: apply has nothing left, plan shows them pending.
      const [block] = shellBlocks('manifests.md').filter((b) => b.some((l) => l.includes('--invite-codes')));
      for (const raw of block!) {
        const line = parse(raw) as Line;
        const run = await runCli(line.args, { cwd: temp.dir, env: suite.env });
        expect(run.code, raw).toBe(0);
        if (line.args[0] === 'plan')
          expect(run.stdout).toMatch(/~ alice@acme\.dev \(viewer on group:engineering\): pending, the invite expires/);
      }
    } finally {
      temp.remove();
    }
  });
});
