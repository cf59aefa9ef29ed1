/**
 * Invite codes encrypted in the product (DESIGN.md §8 rev 6, issue 60): `apply --invite-codes
 * FILE --invite-codes-recipient KEY` writes each code as an OpenPGP message to the inviter's key,
 * which the inviter opens with the private key and the invited person accepts; a key that cannot
 * be used (blank, garbled, two keys, a private key, expired, revoked, signing-only) refuses the
 * whole apply naming why, before a single request — nothing changed live, no file written.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, useSuiteEmulator } from './cli-harness.js';
import {
  decryptWith,
  makeKeyPair,
  revokedPublicKey,
  twoKeysInOneBlock,
  type TestKeyPair,
} from '../support/openpgp-keys.js';

const lineSchema = new Ajv2020({ strict: false }).compile(
  JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'invite-codes.schema.json'), 'utf8')) as object,
);
const TOKEN = 'invite-codes-encrypted-token-9d3a';
const manifest = (org: string, email: string) =>
  `apiVersion: platform-sync/v1\norg:\n  name: ${org}\n  members:\n    - {email: ${email}, role: viewer}\n`;

describe('apply --invite-codes-recipient', () => {
  const suite = useSuiteEmulator(TOKEN, 'invite-recipient');
  let inviter: TestKeyPair;
  beforeAll(async () => {
    inviter = await makeKeyPair();
  });
  const scratch = (name: string, email = 'erin@acme.dev'): { dir: string; codes: string; key: string } => {
    const dir = join(suite.dir, name);
    mkdirSync(join(dir, 'm'), { recursive: true });
    writeFileSync(join(dir, 'm', 'org.yaml'), manifest(name, email));
    return { dir, codes: join(dir, 'codes.jsonl'), key: join(dir, 'inviter.asc') };
  };
  /** `apply <dir>/m --bootstrap --auto-approve`, with the codes file and the recipient when given. */
  const applyIn = (dir: string, extra: string[], stdin?: string) =>
    runCli(['apply', join(dir, 'm'), '--bootstrap', '--auto-approve', ...extra], {
      env: suite.env,
      ...(stdin === undefined ? {} : { stdin }),
    });
  const accept = (code: string, email: string) =>
    fetch(`${suite.emulator.url}/_emulator/groupInvites:accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, email, issuer: 'https://accounts.acme.dev', subject: email }),
    });

  it('writes each code as an OpenPGP message to the key: the inviter opens it, the person accepts it, the plain code is nowhere', async () => {
    const { dir, codes, key } = scratch('sealed');
    writeFileSync(key, inviter.publicKey);
    const r = await applyIn(dir, ['--invite-codes', codes, '--invite-codes-recipient', key]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `Invite codes are encrypted to OpenPGP key ${inviter.fingerprint} (Inviter <inviter@acme.dev>).`,
    );
    expect(statSync(codes).mode & 0o777).toBe(0o600);
    const text = readFileSync(codes, 'utf8');
    expect(text.endsWith('\n') && text.trim().split('\n')).toHaveLength(1);
    const line = JSON.parse(text) as {
      group: string;
      email: string;
      role: string;
      expirationTime: string;
      code: string;
      encryptedTo: string;
    };
    expect(line).toMatchObject({
      group: 'org',
      email: 'erin@acme.dev',
      role: 'viewer',
      encryptedTo: inviter.fingerprint,
    });
    expect(lineSchema(line), JSON.stringify(lineSchema.errors)).toBe(true);
    expect(lineSchema({ ...line, code: 'plain-code-with-encryptedTo' })).toBe(false);
    expect(line.code).toMatch(/^-----BEGIN PGP MESSAGE-----\n[\s\S]+-----END PGP MESSAGE-----\n$/);
    const code = await decryptWith(inviter, line.code);
    expect(code).toMatch(/^\S{16,}$/);
    expect(text).not.toContain(code);
    expect(r.stdout + r.stderr).not.toContain(code);
    expect((await accept(code, 'erin@acme.dev')).status).toBe(200);
    const after = await runCli(['plan', join(dir, 'm'), '--detailed-exitcode'], { env: suite.env });
    expect(after.code, after.stdout).toBe(0);
  });

  it('reads the key from standard input with -', async () => {
    const { dir, codes } = scratch('stdin');
    const r = await applyIn(dir, ['--invite-codes', codes, '--invite-codes-recipient', '-'], inviter.publicKey);
    expect(r.code, r.stderr).toBe(0);
    const line = JSON.parse(readFileSync(codes, 'utf8')) as { code: string; encryptedTo: string };
    expect(line.encryptedTo).toBe(inviter.fingerprint);
    expect(await decryptWith(inviter, line.code)).toMatch(/^\S{16,}$/);
  });

  it('refuses a key that cannot be used, naming why, before any request: nothing changed live, no codes file', async () => {
    const other = await makeKeyPair('other@acme.dev');
    const expired = await makeKeyPair('expired@acme.dev', { expiredDaysAgo: 3 });
    const signing = await makeKeyPair('signing@acme.dev', { signingOnly: true });
    const cases: [string, string, RegExp][] = [
      ['blank', ' \n\n', /it holds no key \(it is empty\)/],
      [
        'garbled',
        inviter.publicKey.replace(/\n[A-Za-z0-9+/]{20}/, '\n!!!!garbled!!!!garbled'),
        /it is not a readable OpenPGP public key \(damaged/,
      ],
      ['not-a-key', 'hello, I am not a key\n', /it is not an ASCII-armored OpenPGP public key/],
      ['two-blocks', `${inviter.publicKey}\n${other.publicKey}`, /it holds 2 key blocks; give exactly one key/],
      ['two-keys', await twoKeysInOneBlock(inviter, other), /it holds 2 keys; give exactly one/],
      ['private', inviter.privateKey, /it is a private key; give the public key only/],
      ['expired', expired.publicKey, new RegExp(`key ${expired.fingerprint} expired on \\d{4}-`)],
      ['revoked', await revokedPublicKey(other), new RegExp(`key ${other.fingerprint} is revoked`)],
      [
        'signing-only',
        signing.publicKey,
        new RegExp(`key ${signing.fingerprint} cannot encrypt: it has no valid encryption key`),
      ],
    ];
    for (const [name, keyText, why] of cases) {
      const { dir, codes, key } = scratch(`bad-${name}`);
      writeFileSync(key, keyText);
      suite.emulator.clearRequestLog();
      const r = await applyIn(dir, ['--invite-codes', codes, '--invite-codes-recipient', key]);
      expect(r.code, name).toBe(1);
      expect(r.stderr, name).toMatch(why);
      expect(r.stderr, name).toContain(`--invite-codes-recipient ${key}: `);
      expect(r.stderr, name).toContain('Nothing was changed.');
      // Never quoted: not the key's text, not the private key's.
      expect(r.stderr + r.stdout, name).not.toMatch(/[A-Za-z0-9+/]{60}|-----BEGIN PGP PRIVATE/);
      expect(suite.emulator.requestLog, name).toEqual([]);
      expect(existsSync(codes), name).toBe(false);
      const live = await runCli(['plan', join(dir, 'm'), '--bootstrap', '--format', 'json'], { env: suite.env });
      expect((JSON.parse(live.stdout) as { summary: { create: number } }).summary.create, name).toBe(2); // the org and the invite: nothing made
    }
  });

  it('reads the key through the one door in (a FIFO, a directory, a missing file are refused) and goes with --invite-codes only', async () => {
    const { dir, codes } = scratch('door');
    const fifo = join(dir, 'key.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    for (const [path, why] of [
      [fifo, 'is not a regular file'],
      [dir, 'is a directory'],
      [join(dir, 'missing.asc'), 'no such file or directory'],
    ] as const) {
      const r = await applyIn(dir, ['--invite-codes', codes, '--invite-codes-recipient', path]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`--invite-codes-recipient ${path}: cannot read the key: ${why}`);
    }
    const alone = await applyIn(dir, ['--invite-codes-recipient', join(dir, 'inviter.asc')]);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('--invite-codes-recipient goes with --invite-codes FILE');
    expect(existsSync(codes)).toBe(false);
  });
});
