/**
 * `npm run demo`: a guided tour of platform-sync on a fresh emulator, with nothing installed
 * but Node. Every step runs the real CLI (`bin/platform-sync … --emulator`) in a temporary
 * directory, so what you see is what you would type. The tour checks its own expectations
 * (exit codes and key lines) and exits non-zero when any step misbehaves.
 */
import { findPackageFile } from '../io/package-file.js';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { environmentRedactor } from '../io/redact.js';
import { writeUserFile } from '../io/write-file.js';
import { listDirectorySync, readTextSyncBounded } from '../io/read-file.js';

/** A file of the demo's own directory, through the door in. */
function readDemoText(path: string): string {
  return readTextSyncBounded(path, { maxBytes: 16 * 1024 * 1024 });
}
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { styleText } from 'node:util';
import { createClient } from '../api/client.js';
import type { ApiClient } from '../api/types.js';
import { EMBEDDED_STATE_PATH } from './embedded.js';
import { EventEmitter } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { main } from './main.js';
import type { CliRun } from './run-cli.js';
import { startEmulator } from '../emulator/index.js';

const useColor = process.stdout.isTTY === true && !process.env.NO_COLOR;
type Style = Parameters<typeof styleText>[0];
const paint = (style: Style, text: string): string =>
  useColor ? styleText(style, text, { validateStream: false }) : text;

/** A step that did not do what the tour expected. */
class DemoFailure extends Error {}

/** The guided tour (`npm run demo`, `platform-sync demo`); throws DemoFailure when a step does not do what it should. */
export async function runDemo(): Promise<void> {
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'platform-sync-demo-'));
  try {
    cpSync(findPackageFile(join('examples', 'acme')), join(dir, 'acme'), { recursive: true });
    // The example's SSO provider reads its client secret from the environment, never a file in git.
    const madeUpSecret = process.env.PLATFORM_SYNC_SECRET_ACME_OKTA === undefined;
    if (madeUpSecret) process.env.PLATFORM_SYNC_SECRET_ACME_OKTA = `demo-okta-secret-${process.pid}`;
    say(
      paint('bold', 'platform-sync demo'),
      `Working in ${dir}: a copy of examples/acme as acme/, and an empty emulator that`,
      `--emulator keeps in ${EMBEDDED_STATE_PATH}. Every command below is the real CLI.`,
      ...(madeUpSecret
        ? [
            'The Okta provider of the example reads PLATFORM_SYNC_SECRET_ACME_OKTA: the demo sets a made-up one (never shown).',
          ]
        : []),
    );

    heading(1, 'Validate the manifests (offline: schema, references, duplicates)');
    await cli(dir, ['validate', 'acme'], 0, 'valid');

    heading(
      2,
      'Plan: the org does not exist yet. Without --bootstrap that is an error (a wrong URL or token looks the same); with it, everything is created',
    );
    const invisible = await cli(dir, ['plan', 'acme', '--emulator'], 1, 'not visible');
    expectText(invisible.stderr, /--bootstrap/, 'an org that is not visible is an error that names --bootstrap');
    const first = await cli(
      dir,
      ['plan', 'acme', '--emulator', '--bootstrap', '--detailed-exitcode'],
      2,
      'there are changes',
      { maxLines: 14 },
    );
    expectText(first.stdout, /create/i, 'the first plan creates resources');

    heading(3, 'Apply it');
    await cli(dir, ['apply', 'acme', '--emulator', '--bootstrap', '--auto-approve'], 0, 'applied', { maxLines: 10 });

    heading(4, 'Plan again: nothing left to do');
    await cli(dir, ['plan', 'acme', '--emulator', '--detailed-exitcode'], 0, 'no changes');

    heading(5, "Someone changes the org by hand, through the API, behind platform-sync's back");
    await changeOutOfBand(dir);

    heading(6, 'Drift: where live differs from the manifests (changed by hand, or not applied yet)');
    const drift = await cli(dir, ['drift', 'acme', '--emulator'], 2, 'drift (a nightly CI job fails here)');
    expectText(drift.stdout, /repo:app/, 'drift names the edited repo');
    expectText(drift.stdout, /identity:intruder/, 'drift names the identity created by hand');
    expectText(drift.stdout, /subscription:/, 'drift names the deleted subscription');

    heading(7, 'Export the live org as manifests (the way to adopt an existing org)');
    await cli(dir, ['export', '--org', 'acme', '--emulator', '--out', 'exported'], 0, 'written');
    const files = listDirectorySync(join(dir, 'exported'), { maxEntries: 10_000 });
    say(`exported/: ${files.join(', ')}`, '', paint('dim', '--- exported/org.yaml (first lines) ---'));
    say(
      ...readDemoText(join(dir, 'exported', 'org.yaml'))
        .split('\n')
        .slice(0, 16)
        .map((l) => `  ${l}`),
    );

    heading(8, 'Plan on the export: it describes live state exactly, so no changes');
    await cli(dir, ['plan', 'exported', '--emulator', '--detailed-exitcode'], 0, 'no changes');

    heading(9, 'Apply the original manifests again: the hand edits are undone');
    await cli(dir, ['apply', 'acme', '--emulator', '--auto-approve'], 0, 'applied');
    await cli(dir, ['drift', 'acme', '--emulator'], 0, 'in sync');

    heading(10, 'Rename a group in the manifests: renamedFrom renames it in place (same uid, everything beneath kept)');
    const engineering = join(dir, 'acme', 'engineering.yaml');
    writeUserFile(
      engineering,
      readDemoText(engineering).replace(
        '        - name: backend\n',
        '        - name: services\n          renamedFrom: backend\n',
      ),
      'the renamed group',
      { redact: environmentRedactor() },
    );
    say(
      paint('dim', '  acme/engineering.yaml:   - name: services'),
      paint('dim', '                             renamedFrom: backend'),
    );
    const rename = await cli(
      dir,
      ['plan', 'acme', '--emulator', '--detailed-exitcode'],
      2,
      'one rename, nothing deleted',
      { maxLines: 12 },
    );
    expectText(
      rename.stdout,
      /rename group:engineering\/backend → group:engineering\/services/,
      'the plan shows the rename as a rename',
    );
    expectText(rename.stdout, /Plan: 0 to create, 1 to update, 0 to delete\./, 'a rename is one update');
    await cli(dir, ['apply', 'acme', '--emulator', '--auto-approve'], 0, 'renamed');
    await cli(dir, ['plan', 'acme', '--emulator', '--detailed-exitcode'], 0, 'no changes');

    heading(
      11,
      'Identities of every kind and SSO: show prints the uids a CI job or a login needs; --rotate-secrets re-sends the Okta client secret',
    );
    const shown = await cli(dir, ['show', 'acme', '--emulator'], 0, 'shown', { maxLines: 14 });
    expectText(shown.stdout, /identity:engineering\/platform\/aws-deployer/, 'show lists the AWS identity');
    expectText(
      shown.stdout,
      /groupMapping:identityProvider:okta\/platform-admins=owner/,
      'show lists the SSO group mappings',
    );
    const rotate = await cli(
      dir,
      ['apply', 'acme', '--emulator', '--rotate-secrets', '--auto-approve'],
      0,
      'the secret was sent again, by one PATCH',
    );
    expectText(
      rotate.stdout,
      /oidc\.clientSecret: \(sensitive: read from \$PLATFORM_SYNC_SECRET_ACME_OKTA at apply time\)/,
      'the plan names where the secret comes from, never its value',
    );

    heading(
      12,
      'Access review: audit flags what the manifests grant that a security review would (exit 2: something high)',
    );
    const review = await cli(
      dir,
      ['audit', 'acme', '--emulator'],
      2,
      'a finding at or above --fail-on high (a weekly job fails here)',
      { maxLines: 12 },
    );
    expectText(
      review.stdout,
      /HIGH\s+pattern-pull-request\s+identity:engineering\/ci-bot/,
      'audit finds the pattern that admits pull requests',
    );
    expectText(review.stdout, /How to fix:\n\s+pattern-pull-request: Match only the refs/, 'audit says how to fix it');

    heading(
      13,
      'Onboard a person from git: a members line invites her, the code goes only to the file you name, and once she accepts she is present',
    );
    writeUserFile(
      engineering,
      readDemoText(engineering).replace(
        '    - name: engineering\n',
        '    - name: engineering\n      members:\n        - {email: dana@acme.dev, role: viewer}\n',
      ),
      'the new member line',
      { redact: environmentRedactor() },
    );
    say(
      paint('dim', '  acme/engineering.yaml:   members:'),
      paint('dim', '                             - {email: dana@acme.dev, role: viewer}'),
    );
    const invite = await cli(dir, ['plan', 'acme', '--emulator', '--detailed-exitcode'], 2, 'one invite to create', {
      maxLines: 12,
    });
    expectText(
      invite.stdout,
      /\+ dana@acme\.dev \(viewer on group:engineering\): invited, the invite expires /,
      'the plan says who is invited, to what, until when',
    );
    await cli(
      dir,
      ['apply', 'acme', '--emulator', '--auto-approve', '--invite-codes', 'invites.jsonl'],
      0,
      'invited; the code is in invites.jsonl (0600) and nowhere else',
    );
    const code = String((JSON.parse(readDemoText(join(dir, 'invites.jsonl')).trim()) as { code?: unknown }).code);
    await acceptInvite(dir, code, 'dana@acme.dev');
    say('  dana@acme.dev accepted the invite (the emulator stands in for her sign-in)');
    const present = await cli(
      dir,
      ['plan', 'acme', '--emulator', '--detailed-exitcode', '--format', 'json'],
      0,
      'dana is present: her identity and binding are kept by the members line',
      { maxLines: 4 },
    );
    expectText(
      present.stdout,
      /"state": "present",\s+"identity": "identity:engineering\/dana"/,
      'the plan finds her as present',
    );

    heading(
      14,
      'An org you adopt: globex, seeded with an identity last seen in March 2025 and an end-of-life tag; export it, then review it',
    );
    await seedAdoptedOrg(dir);
    await cli(dir, ['export', '--org', 'globex', '--emulator', '--out', 'globex'], 0, 'written');
    const adopted = await cli(
      dir,
      ['audit', 'globex', '--emulator', '--fail-on', 'medium'],
      2,
      'medium findings with --fail-on medium',
    );
    expectText(
      adopted.stdout,
      /MEDIUM stale-identity\s+identity:legacy-deployer: last seen \d+ days ago/,
      'audit finds the identity nobody has used',
    );
    expectText(
      adopted.stdout,
      /MEDIUM eol-tags\s+repo:nginx: 1 end-of-life tag: 1\.25/,
      'audit finds the end-of-life tag',
    );

    say(
      '',
      paint(
        ['bold', 'green'],
        `Demo finished: every step behaved as expected (${((performance.now() - started) / 1000).toFixed(1)} s).`,
      ),
    );
    // Where the package is (a repository checkout, or node_modules/platform-sync), as the reader can open it.
    const place = (file: string): string => relative(process.cwd(), findPackageFile(file)) || file;
    say(
      `Next: \`platform-sync init\` for a starter repository; the docs in ${place('docs')}/, and ${place(join('examples', 'github-actions'))}/ for CI.`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A person accepts an invite: the emulator-only accept endpoint, on the demo's state, with its own server. */
async function acceptInvite(dir: string, code: string, email: string): Promise<void> {
  const emulator = await startEmulator({ port: 0, tokens: [], statePath: join(dir, EMBEDDED_STATE_PATH) });
  try {
    const res = await fetch(`${emulator.url}/_emulator/groupInvites:accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, email, issuer: 'https://accounts.acme.dev', subject: email }),
    });
    if (res.status !== 200) throw new DemoFailure(`accepting the invite answered HTTP ${res.status}`);
  } finally {
    await emulator.close();
  }
}

/**
 * Changes made the way a person in a console would: straight through the API. The tour runs
 * its own emulator on the same state file (with a token of its own) while no command runs.
 */
async function changeOutOfBand(dir: string): Promise<void> {
  const token = 'demo-console-user';
  const emulator = await startEmulator({
    port: 0,
    tokens: [{ token, role: 'owner' }],
    statePath: join(dir, EMBEDDED_STATE_PATH),
  });
  const client = createClient({ baseUrl: emulator.url, token });
  try {
    const org = await findOne(client, 'group', { name: 'acme' }, 'the acme org');
    const app = await findOne(client, 'repo', { childrenOf: org.uid, name: 'app' }, 'repo app');
    await client.update('repo', app.uid, { description: 'Edited in the console' }, ['description']);
    say('  edited      repo app: description "Edited in the console"');
    await client.create('identity', org.uid, { name: 'intruder', description: 'Created by hand in the console' });
    say('  created     identity intruder');
    const subscriptions = await client.list('subscription', { childrenOf: org.uid });
    const audit = subscriptions.items[0];
    if (!audit) throw new DemoFailure('the acme org has no subscription to delete');
    await client.delete('subscription', audit.uid);
    say(`  deleted     subscription ${String(audit.sink)}`);
  } finally {
    await client.close();
    await emulator.close();
  }
}

/** A second org in the same emulator state, as an org that existed before platform-sync: seeded (the emulator's seed sets what only the service sets). */
async function seedAdoptedOrg(dir: string): Promise<void> {
  const emulator = await startEmulator({
    port: 0,
    tokens: [{ token: 'demo-seed', role: 'owner' }],
    statePath: join(dir, EMBEDDED_STATE_PATH),
  });
  try {
    emulator.seed({
      orgs: [
        {
          name: 'globex',
          identities: [
            {
              name: 'legacy-deployer',
              description: 'The old deploy pipeline',
              lastSeenTime: '2025-03-01T09:00:00Z',
              claimMatch: {
                issuer: 'https://token.actions.githubusercontent.com',
                subject: 'repo:globex/deploy:ref:refs/heads/main',
              },
            },
          ],
          repos: [
            {
              name: 'nginx',
              tags: [
                { name: '1.27', digest: `sha256:${'1'.repeat(64)}` },
                { name: '1.25', digest: `sha256:${'2'.repeat(64)}`, deprecated: true },
              ],
            },
          ],
        },
      ],
    });
    say(
      '  seeded      org globex: identity legacy-deployer (lastSeenTime 2025-03-01), repo nginx with tags 1.27 and 1.25 (deprecated)',
    );
  } finally {
    await emulator.close();
  }
}

async function findOne(
  client: ApiClient,
  kind: 'group' | 'repo',
  query: { name: string; childrenOf?: string },
  what: string,
) {
  const found = await client.list(kind, query);
  const item = found.items.find((i) => !query.childrenOf || i.uid.startsWith(`${query.childrenOf}/`));
  if (!item) throw new DemoFailure(`${what} is not in the emulator after apply`);
  return item;
}

/**
 * Runs the CLI in `dir`, shows the command and its output (long output cut in the middle, so
 * the tour stays readable), and checks the exit code.
 */
async function cli(
  dir: string,
  args: string[],
  expectedCode: number,
  meaning: string,
  options: { maxLines?: number } = {},
): Promise<CliRun> {
  say(paint('cyan', `$ platform-sync ${args.join(' ')}`));
  const run = await runInProcess(args, dir);
  const output = (run.stdout + run.stderr).trimEnd();
  if (output) say(...shorten(output.split('\n'), options.maxLines).map((l) => `  ${l}`));
  if (run.code !== expectedCode) {
    throw new DemoFailure(
      `\`platform-sync ${args.join(' ')}\` exited ${run.code}, expected ${expectedCode} (${meaning})`,
    );
  }
  say(paint('green', `✓ exit ${run.code}: ${meaning}`));
  return run;
}

/**
 * One run of the real CLI (`main`, what bin/platform-sync runs) in this process, in `dir`, with
 * the caller's environment but none of its PLATFORM_* connection settings or step summary, and no
 * colour: the same commands a reader types, without a Node start-up for each (≈25 of them).
 */
async function runInProcess(args: string[], dir: string): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of ['PLATFORM_TOKEN', 'PLATFORM_API_URL', 'GITHUB_STEP_SUMMARY']) delete env[name];
  const collect = (into: string[]) =>
    new Writable({ write: (chunk: Buffer | string, _encoding, done) => (into.push(String(chunk)), done()) });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exits: number[] = [];
  const code = await main(['node', 'platform-sync', ...args], {
    stdout: collect(stdout),
    stderr: collect(stderr),
    stdin: Readable.from([]),
    env,
    cwd: dir,
    signals: new EventEmitter(),
    exit: (c) => void exits.push(c),
  });
  return { code: exits[0] ?? code, stdout: stdout.join(''), stderr: stderr.join('') };
}

/** The first lines and the last three, with a note of how many were left out between. */
function shorten(lines: string[], maxLines: number | undefined): string[] {
  if (maxLines === undefined || lines.length <= maxLines) return lines;
  const tail = 3;
  const head = lines.slice(0, maxLines - tail);
  return [...head, paint('dim', `… ${lines.length - head.length - tail} more lines …`), ...lines.slice(-tail)];
}

function expectText(text: string, pattern: RegExp, what: string): void {
  if (!pattern.test(text)) throw new DemoFailure(`expected ${what} (${pattern}), but the output does not show it`);
}

function heading(n: number, title: string): void {
  say('', paint('bold', `── ${n}. ${title}`));
}

function say(...lines: string[]): void {
  process.stdout.write(lines.join('\n') + '\n');
}

/** The demo as a program: its exit code (0, or 1 naming the step that failed). */
export async function demoMain(): Promise<number> {
  try {
    await runDemo();
    return 0;
  } catch (err) {
    if (err instanceof DemoFailure) process.stderr.write(`\ndemo failed: ${err.message}\n`);
    else
      process.stderr.write(
        `\ndemo failed with an unexpected error (a bug):\n${(err as Error)?.stack ?? String(err)}\n`,
      );
    return 1;
  }
}

// Run as a script (`node dist/src/cli/demo.js`, npm run demo); imported by `platform-sync demo`, it waits to be called.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  void demoMain().then((code) => (process.exitCode = code));
