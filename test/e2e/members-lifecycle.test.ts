/**
 * Members and invites end to end (DESIGN.md §4 "Members and invites", issue 38): a member line
 * is invited (its code kept only in the --invite-codes file), pending while the invite is open,
 * present once the person accepts through the emulator, and pruned with its identity when the
 * line goes. No code appears in any output.
 */
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'members-e2e-token-5be0';
const manifest = (members: string[]) =>
  [
    'apiVersion: platform-sync/v1',
    'org:',
    '  name: acme',
    '  groups:',
    '    - name: eng',
    ...(members.length > 0 ? ['      members:', ...members.map((m) => `        - ${m}`)] : []),
    '',
  ].join('\n');

describe('members and invites', () => {
  const suite = useSuiteEmulator(TOKEN, 'members', () => mkdirSync(dir));
  const dir = join(suite.dir, 'm');
  const codesFile = join(suite.dir, 'codes.jsonl');
  const outputs: string[] = [];
  const cli = async (args: string[]) => {
    const r = await runCli(args, { env: suite.env });
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  const codes = (): { group: string; email: string; role: string; expirationTime: string; code: string }[] =>
    readFileSync(codesFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as never);
  const accept = async (code: string, email: string) =>
    fetch(`${suite.emulator.url}/_emulator/groupInvites:accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, email, issuer: 'https://accounts.acme.dev', subject: email }),
    });

  it('refuses to create invites without --invite-codes, before any write', async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest(['{email: Alice@Acme.dev, role: viewer}']));
    const r = await cli(['apply', dir, '--bootstrap', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('names no file for their codes; apply with --invite-codes FILE');
    expect(suite.emulator.requestLog.filter((e) => e.method !== 'GET')).toEqual([]);
  });

  it('refuses a codes file that is a symbolic link, before any write (a PR cannot aim the codes elsewhere)', async () => {
    const elsewhere = join(suite.dir, 'elsewhere.jsonl');
    writeFileSync(elsewhere, '');
    const link = join(suite.dir, 'link.jsonl');
    symlinkSync(elsewhere, link);
    const r = await cli(['apply', dir, '--bootstrap', '--auto-approve', '--invite-codes', link]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `cannot write invite codes to ${link}: it is a symbolic link; name the file itself. Nothing was changed.`,
    );
    expect(suite.emulator.requestLog.filter((e) => e.method !== 'GET')).toEqual([]);
    expect(readFileSync(elsewhere, 'utf8')).toBe('');
  });

  it('creates an invite and keeps its code only in the --invite-codes file (0600)', async () => {
    const plan = await cli(['plan', dir, '--bootstrap']);
    expect(plan.stdout).toMatch(
      /\+ Alice@Acme\.dev \(viewer on group:eng\): invited, the invite expires \d{4}-\d\d-\d\dT/,
    );
    expect(plan.stdout).toContain('+ create groupInvite:eng/alice@acme.dev=viewer');
    const apply = await cli(['apply', dir, '--bootstrap', '--auto-approve', '--invite-codes', codesFile]);
    expect(apply.code, apply.stderr).toBe(0);
    expect(statSync(codesFile).mode & 0o777).toBe(0o600);
    const [record] = codes();
    expect(record).toMatchObject({ group: 'group:eng', email: 'Alice@Acme.dev', role: 'viewer' });
    expect(record!.code.length).toBeGreaterThanOrEqual(16);
  });

  it('is pending while the invite is open: the plan is empty and says when it expires', async () => {
    const plan = await cli(['plan', dir, '--detailed-exitcode']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/~ Alice@Acme\.dev \(viewer on group:eng\): pending, the invite expires /);
    const json = JSON.parse((await cli(['plan', dir, '--format', 'json'])).stdout) as {
      members: { state: string; expirationTime: string }[];
    };
    expect(json.members).toEqual([
      expect.objectContaining({ state: 'pending', expirationTime: codes()[0]!.expirationTime }),
    ]);
    // show lists the open invite the line stands for, with its uid.
    const shown = JSON.parse((await cli(['show', dir, '--format', 'json'])).stdout) as {
      resources: { address: string; kind: string; uid: string }[];
    };
    expect(shown.resources.filter((r) => r.kind === 'groupInvite')).toEqual([
      expect.objectContaining({ address: 'groupInvite:eng/alice@acme.dev=viewer', uid: expect.stringMatching(/\S/) }),
    ]);
  });

  it('is present once the person accepts: the emulator made the identity and binding, and the plan keeps them', async () => {
    const accepted = await accept(codes()[0]!.code, 'alice@acme.dev');
    expect(accepted.status).toBe(200);
    const plan = await cli(['plan', dir, '--detailed-exitcode', '--format', 'json']);
    expect(plan.code, plan.stdout).toBe(0);
    const json = JSON.parse(plan.stdout) as { members: { state: string; identity: string }[] };
    expect(json.members).toEqual([expect.objectContaining({ state: 'present', identity: 'identity:eng/alice' })]);
    // show gives the person's identity and binding, the invite gone.
    const shown = JSON.parse((await cli(['show', dir, '--format', 'json'])).stdout) as {
      resources: { address: string; kind: string }[];
    };
    expect(shown.resources.map((r) => r.address)).toEqual([
      'group:eng',
      'identity:eng/alice',
      'org',
      'roleBinding:eng/alice=viewer',
    ]);
    // The code is consumed: a second accept finds nothing.
    expect((await accept(codes()[0]!.code, 'alice@acme.dev')).status).toBe(404);
  });

  it('prunes the binding and the identity when the line goes', async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest([]));
    const plan = await cli(['plan', dir]);
    expect(plan.stdout).toContain('- delete roleBinding:eng/alice=viewer');
    expect(plan.stdout).toContain('- delete identity:eng/alice');
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    expect((await cli(['plan', dir, '--detailed-exitcode'])).code).toBe(0);
  });

  it('never shows a code in any output', () => {
    for (const { code } of codes()) for (const text of outputs) expect(text).not.toContain(code);
  });
});

describe('accept-invite on the embedded emulator (issue 50)', () => {
  it('lets a member accept offline with the code from the --invite-codes file: the next plan finds them present, and no output shows the code', async () => {
    await withInvitedAlice('offline', 'invites.jsonl', async (here) => {
      const code = (JSON.parse(readFileSync(join(here, 'invites.jsonl'), 'utf8').trim()) as { code: string }).code;
      const accepted = await runCli(
        ['accept-invite', '--emulator', '--code-file', 'invites.jsonl', '--email', 'Alice@acme.dev'],
        { cwd: here },
      );
      expect(accepted.code, accepted.stderr).toBe(0);
      expect(accepted.stdout).toContain('Accepted: Alice@acme.dev');
      expect(accepted.stdout + accepted.stderr).not.toContain(code);
      const plan = await runCli(['plan', 'org.yaml', '--emulator', '--format', 'json'], { cwd: here });
      expect((JSON.parse(plan.stdout) as { members: { state: string }[] }).members).toEqual([
        expect.objectContaining({ state: 'present' }),
      ]);
      const again = await runCli(
        ['accept-invite', '--emulator', '--code-file', 'invites.jsonl', '--email', 'alice@acme.dev'],
        { cwd: here },
      );
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('the invite was not accepted (HTTP 404');
      // An e-mail with no code in the file: named on one line, and nothing accepted (the emulator is never started).
      const stateBefore = readFileSync(join(here, '.platform-sync', 'emulator.json'), 'utf8');
      const unknown = await runCli(
        ['accept-invite', '--emulator', '--code-file', 'invites.jsonl', '--email', 'bob@acme.dev\nAccepted: x'],
        { cwd: here },
      );
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('no invite code for bob@acme.dev\\u{a}Accepted: x in invites.jsonl');
      expect(readFileSync(join(here, '.platform-sync', 'emulator.json'), 'utf8')).toBe(stateBefore);
      const remote = await runCli(['accept-invite', '--code', 'x', '--email', 'alice@acme.dev'], { cwd: here });
      expect(remote.code).toBe(1);
      expect(remote.stderr).toContain('accept-invite works on the embedded emulator only (--emulator)');
    });
  });
});

describe('accept-invite --code-file, one e-mail invited to two groups', () => {
  // Found by the review: --code-file always took the file's last code of the e-mail, so once that
  // invite was accepted the other group's invite could not be (HTTP 404 on the spent code).
  it('accepts each open invite in turn, newest first, skipping the codes already spent', async () => {
    const temp = makeTempDir('members-two-groups');
    try {
      writeFileSync(
        join(temp.dir, 'org.yaml'),
        [
          'apiVersion: platform-sync/v1',
          'org:',
          '  name: two',
          '  members:',
          '    - {email: carol@acme.dev, role: viewer}',
          '  groups:',
          '    - name: eng',
          '      members:',
          '        - {email: carol@acme.dev, role: editor}',
          '',
        ].join('\n'),
      );
      const here = { cwd: temp.dir };
      const applied = await runCli(
        ['apply', 'org.yaml', '--emulator', '--bootstrap', '--auto-approve', '--invite-codes', 'codes.jsonl'],
        here,
      );
      expect(applied.code, applied.stderr).toBe(0);
      const accept = ['accept-invite', '--emulator', '--code-file', 'codes.jsonl', '--email', 'carol@acme.dev'];
      for (let i = 0; i < 2; i++) {
        const accepted = await runCli(accept, here);
        expect(accepted.code, accepted.stderr).toBe(0);
      }
      const plan = await runCli(['plan', 'org.yaml', '--emulator', '--format', 'json'], here);
      expect((JSON.parse(plan.stdout) as { members: { state: string }[] }).members.map((m) => m.state)).toEqual([
        'present',
        'present',
      ]);
      const third = await runCli(accept, here);
      expect(third.code).toBe(1);
      expect(third.stderr).toContain('the invite was not accepted (HTTP 404');
    } finally {
      temp.remove();
    }
  });
});

describe('--reinvite (issue 50)', () => {
  it('replaces an open invite whose code was lost: the old one deleted, a new one whose code works; a typo is refused', async () => {
    await withInvitedAlice('lost', 'lost.jsonl', async (here) => {
      rmSync(join(here, 'lost.jsonl')); // the code is lost
      const plan = await runCli(['plan', 'org.yaml', '--emulator', '--reinvite', 'Alice@acme.dev'], { cwd: here });
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).toMatch(
        /alice@acme\.dev \(viewer on org\): invited, the invite expires \S+ \(replaces the open invite, by --reinvite, groupInvite:[0-9a-f]{16}=viewer\)/,
      );
      expect(plan.stdout).toContain('Plan: 1 to create, 0 to update, 1 to delete.');
      const applied = await runCli(
        [
          'apply',
          'org.yaml',
          '--emulator',
          '--auto-approve',
          '--reinvite',
          'alice@acme.dev',
          '--invite-codes',
          'new.jsonl',
        ],
        { cwd: here },
      );
      expect(applied.code, applied.stderr).toBe(0);
      expect(
        (
          await runCli(['accept-invite', '--emulator', '--code-file', 'new.jsonl', '--email', 'alice@acme.dev'], {
            cwd: here,
          })
        ).code,
      ).toBe(0);
      const typo = await runCli(['plan', 'org.yaml', '--emulator', '--reinvite', 'alcie@acme.dev'], { cwd: here });
      expect(typo.code).toBe(1);
      expect(typo.stderr).toContain(
        '--reinvite alcie@acme.dev: no members line of that e-mail has an invite to replace',
      );
    });
  });
});

/** A directory of its own (its embedded emulator's state in it) where org `org` has invited alice, her code in `codesFile`. */
async function withInvitedAlice(org: string, codesFile: string, fn: (here: string) => Promise<void>): Promise<void> {
  const temp = makeTempDir(`members-${org}`);
  try {
    writeFileSync(
      join(temp.dir, 'org.yaml'),
      `apiVersion: platform-sync/v1\norg:\n  name: ${org}\n  members:\n    - {email: alice@acme.dev, role: viewer}\n`,
    );
    const applied = await runCli(
      ['apply', 'org.yaml', '--emulator', '--bootstrap', '--auto-approve', '--invite-codes', codesFile],
      { cwd: temp.dir },
    );
    expect(applied.code, applied.stderr).toBe(0);
    await fn(temp.dir);
  } finally {
    temp.remove();
  }
}
