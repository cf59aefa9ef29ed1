/**
 * Export writes only inside --out (DESIGN.md §5): never through a link planted there, with file
 * names safe and short whatever the live names are (and still round-tripping), and all files
 * or none.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SeedResult } from '../../src/emulator/index.js';
import { startRewritingProxy } from '../support/rewriting-proxy.js';
import { runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'export-untrusted-token-6d0e';
const LONG = `team ${'x'.repeat(295)}`;

let seeded: SeedResult | undefined;

describe('export into a directory it does not trust', () => {
  const suite = useSuiteEmulator(TOKEN, 'export-untrusted', async (emulator) => {
    seeded = emulator.seed({
      orgs: [
        {
          name: 'wide',
          groups: [
            { name: LONG, description: 'a legal 300-character name' },
            ...['a', 'b', 'c', 'd'].map((name) => ({ name })),
          ],
        },
      ],
    });
  });

  it('shortens a 300-character group name to a safe file name, deterministically, and the export still plans to zero changes', async () => {
    const out = join(suite.dir, 'wide');
    const run = await runCli(['export', '--org', 'wide', '--out', out], { env: suite.env });
    expect(run.code, run.stderr).toBe(0);
    const files = readdirSync(out).sort();
    expect(files).toHaveLength(6);
    const long = files.find((f) => f.startsWith('team_x'))!;
    expect(long).toMatch(/^team_x+-[0-9a-f]{12}\.yaml$/);
    expect(long.length).toBeLessThanOrEqual(105);
    const again = join(suite.dir, 'wide-again');
    expect((await runCli(['export', '--org', 'wide', '--out', again], { env: suite.env })).code).toBe(0);
    expect(readdirSync(again).sort()).toEqual(files);
    const plan = await runCli(['plan', out, '--detailed-exitcode'], { env: suite.env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });

  it('refuses a dangling symlink at a file name, with --force too, never writing through it', async () => {
    const out = join(suite.dir, 'planted');
    mkdirSync(out);
    const outside = join(suite.dir, 'outside.yaml');
    symlinkSync(outside, join(out, 'org.yaml'));
    const refused = await runCli(['export', '--org', 'wide', '--out', out], { env: suite.env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `${join(out, 'org.yaml')} (a symlink) already exists; export does not overwrite files unless --force`,
    );
    expect(readdirSync(out)).toEqual(['org.yaml']);
    expect(existsSync(outside)).toBe(false);

    // A link is nothing an export wrote: --force refuses it too, naming it, and writes nothing (DESIGN.md §8 rev 5).
    const forced = await runCli(['export', '--org', 'wide', '--out', out, '--force'], { env: suite.env });
    expect(forced.code).toBe(1);
    expect(forced.stderr).toContain(`${join(out, 'org.yaml')} (a symlink): not written by an export`);
    expect(lstatSync(join(out, 'org.yaml')).isSymbolicLink()).toBe(true);
    expect(existsSync(outside)).toBe(false);
    expect(readdirSync(out)).toEqual(['org.yaml']);
  });

  it('writes all files or none: a directory in the way of one file leaves the others unwritten', async () => {
    const out = join(suite.dir, 'blocked');
    mkdirSync(join(out, 'c.yaml'), { recursive: true });
    const run = await runCli(['export', '--org', 'wide', '--out', out, '--force'], { env: suite.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${join(out, 'c.yaml')} is a directory`);
    expect(readdirSync(out)).toEqual(['c.yaml']);
  });

  it('refuses a CR served in the org or a group name (what its header comments quote), printing and writing nothing', async () => {
    // The emulator refuses such names: a proxy serves them, as a non-conforming server would.
    const orgUid = seeded!.orgUids.wide!;
    for (const [from, to, what] of [
      ['wide', 'wide\rprune: false', 'invalid org name'],
      ['a', 'a\rgroups: []', 'invalid group name'],
    ] as const) {
      const proxy = await startRewritingProxy(suite.emulator.url, (_request, body) => replaced(body, from, to));
      try {
        const env = { ...suite.env, PLATFORM_API_URL: proxy.url };
        const out = join(suite.dir, `cr-${from}`);
        for (const args of [[], ['--out', out]]) {
          const run = await runCli(['export', '--org', orgUid, ...args], { env });
          expect(run.code, run.stderr).toBe(1);
          expect(run.stdout).toBe('');
          expect(run.stderr).toContain(`${what} ${JSON.stringify(to)}`);
        }
        expect(existsSync(out)).toBe(false);
      } finally {
        await proxy.close();
      }
    }
  });
});

/** `value` with every string equal to `from` (a name) replaced by `to`. */
function replaced(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return value === from ? to : value;
  if (Array.isArray(value)) return value.map((v) => replaced(v, from, to));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaced(v, from, to)]));
}
