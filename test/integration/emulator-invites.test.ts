/**
 * Group invites in the emulator (DESIGN.md §2, §6; issue 38), over HTTP: the code is in the
 * create's answer only and kept as a hash (in memory and in the state file); no update (405);
 * the 30-day bound; the emulator-only accept endpoint and what it refuses; repos' bundles.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRoleUid, type Emulator } from '../../src/emulator/index.js';
import { call, get, patch, post, startTestEmulator, VIEWER } from './emulator-helpers.js';

const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), 'platform-sync-emulator-invites-'));
let emu: Emulator;
let org: string;
const viewer = builtinRoleUid('viewer');
const inDays = (n: number) => new Date(Date.now() + n * DAY).toISOString();
const accept = (body: unknown) => call(emu, 'POST', '/_emulator/groupInvites:accept', body, null);

beforeAll(async () => {
  emu = await startTestEmulator({ statePath: join(dir, 'state.json') });
  org = (await post(emu, '/iam/v2/groups', { name: 'acme' })).body.uid;
});
afterAll(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('group invites', () => {
  let code: string;
  let uid: string;

  it('answers the code to the create only; Get and List never carry it, the state file holds only its hash', async () => {
    const created = await post(emu, `/iam/v2/groupInvites/${org}`, {
      role: viewer,
      email: 'Alice@acme.dev',
      expirationTime: inDays(7),
    });
    expect(created.status).toBe(200);
    ({ code, uid } = created.body);
    expect(code.length).toBeGreaterThanOrEqual(16);
    expect(uid).toMatch(new RegExp(`^${org}/[0-9a-f]{16}$`));
    expect(created.body).toMatchObject({ role: viewer, email: 'Alice@acme.dev', singleUse: true });
    const one = await get(emu, `/iam/v2/groupInvites/${uid}`);
    const list = await get(emu, '/iam/v2/groupInvites');
    for (const text of [one.text, list.text]) expect(text).not.toContain(code);
    expect(one.body).not.toHaveProperty('code');
    await emu.flush();
    const state = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    expect(state).not.toContain(code);
    expect(state).toContain('sha256:');
  });

  it('has no update: PATCH is 405 naming the methods there are', async () => {
    const r = await patch(emu, `/iam/v2/groupInvites/${uid}?updateMask=email`, { email: 'bob@acme.dev' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  it('opens for at most 30 days, never in the past; a viewer token may not create one', async () => {
    for (const expirationTime of [inDays(-1), inDays(31)]) {
      const r = await post(emu, `/iam/v2/groupInvites/${org}`, { role: viewer, expirationTime });
      expect(r.status, expirationTime).toBe(400);
      expect(r.text).toContain('expirationTime');
    }
    expect((await post(emu, `/iam/v2/groupInvites/${org}`, { role: viewer, expirationTime: inDays(30) })).status).toBe(
      200,
    );
    expect(
      (await post(emu, `/iam/v2/groupInvites/${org}`, { role: viewer, expirationTime: inDays(7) }, VIEWER)).status,
    ).toBe(403);
    expect(
      (await post(emu, `/iam/v2/groupInvites/${org}`, { role: '0'.repeat(40), expirationTime: inDays(7) })).status,
    ).toBe(400);
  });

  it('accepts a code once, for its e-mail only: identity with the e-mail and claimMatch, and the binding', async () => {
    expect(
      (await accept({ code, email: 'mallory@acme.dev', issuer: 'https://accounts.acme.dev', subject: 'm' })).status,
    ).toBe(403);
    expect(
      (
        await accept({
          code: 'x'.repeat(43),
          email: 'alice@acme.dev',
          issuer: 'https://accounts.acme.dev',
          subject: 'a',
        })
      ).status,
    ).toBe(404);
    expect((await accept({ code, email: 'alice@acme.dev' })).status).toBe(400);
    const ok = await accept({ code, email: 'alice@ACME.dev', issuer: 'https://accounts.acme.dev', subject: 'alice' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.text).not.toContain(code);
    expect(ok.body.identity).toMatchObject({
      name: 'alice',
      email: 'alice@ACME.dev',
      claimMatch: { issuer: 'https://accounts.acme.dev', subject: 'alice' },
    });
    expect(ok.body.roleBinding).toMatchObject({ identity: { uid: ok.body.identity.uid }, role: { uid: viewer } });
    expect((await get(emu, `/iam/v2/groupInvites/${uid}`)).status).toBe(404);
    expect(
      (await accept({ code, email: 'alice@acme.dev', issuer: 'https://accounts.acme.dev', subject: 'alice' })).status,
    ).toBe(404);
    // The identity's e-mail is the service's to set: a client cannot create one with it.
    expect((await post(emu, `/iam/v2/identities/${org}`, { name: 'x', email: 'x@acme.dev' })).status).toBe(400);
  });

  it('refuses an expired invite with code 9', async () => {
    const seeded = await startTestEmulator({
      seed: {
        orgs: [
          {
            name: 'acme',
            groupInvites: [{ role: 'viewer', expirationTime: inDays(-1), code: 'an-expired-invite-code-1234' }],
          },
        ],
      },
    });
    try {
      const r = await call(
        seeded,
        'POST',
        '/_emulator/groupInvites:accept',
        { code: 'an-expired-invite-code-1234', email: 'a@acme.dev', issuer: 'https://accounts.acme.dev', subject: 'a' },
        null,
      );
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(9);
      expect(r.text).not.toContain('an-expired-invite-code-1234');
    } finally {
      await seeded.close();
    }
  });
});

describe('repo bundles', () => {
  it('keeps the order sent; a duplicate or a bad keyword is code 3; more than 16 is refused', async () => {
    const ok = await post(emu, `/registry/v2/repos/${org}`, { name: 'nginx', bundles: ['fips', 'featured'] });
    expect(ok.body.bundles).toEqual(['fips', 'featured']);
    expect((await post(emu, `/registry/v2/repos/${org}`, { name: 'a', bundles: ['x', 'x'] })).status).toBe(400);
    expect((await post(emu, `/registry/v2/repos/${org}`, { name: 'b', bundles: ['Upper'] })).status).toBe(400);
    expect(
      (
        await post(emu, `/registry/v2/repos/${org}`, {
          name: 'c',
          bundles: Array.from({ length: 17 }, (_, i) => `b${i}`),
        })
      ).status,
    ).toBe(400);
    expect((await post(emu, `/registry/v2/repos/${org}`, { name: 'd' })).body.bundles).toEqual([]);
  });
});
