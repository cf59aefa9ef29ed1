/**
 * An invite whose create answer is lost (issue 38, under DESIGN.md §4's exactly-once creates):
 * the client finds what the create made by listing — an invite without its code, which nobody
 * could use — so apply deletes it and makes it again, and keeps the code of the one that stays.
 */
import { describe, expect, it } from 'vitest';
import { apply, createClient, plan, readLiveState, type DesiredState, type InviteCodeRecord } from '../../src/index.js';
import type { ApiClient } from '../../src/api/types.js';
import { startEmulator } from '../../src/emulator/index.js';
import { answerWith, startRewritingProxy } from '../support/rewriting-proxy.js';

const TOKEN = 'invite-lost-create-token-2c8f';

/** An org with one member line: erin, a viewer. */
const ERIN = {
  org: { name: 'acme', source: { file: 'o.yaml', line: 1, column: 1 } },
  resources: [
    {
      kind: 'group',
      address: 'org',
      groupPath: '',
      parentAddress: null,
      fields: { name: 'acme' },
      source: { file: 'o.yaml', line: 1, column: 1 },
    },
  ],
  members: [
    {
      address: 'member:erin@acme.dev=viewer',
      groupPath: '',
      email: 'erin@acme.dev',
      role: { builtin: 'viewer' },
      source: { file: 'o.yaml', line: 4, column: 7 },
    },
  ],
  settings: { prune: true, ignore: [], protect: [] },
  files: ['o.yaml'],
} as DesiredState;

/** The group invites of acme, live. */
async function invitesOf(client: ApiClient) {
  return (await readLiveState(client, { org: { name: 'acme' } })).resources.filter((r) => r.kind === 'groupInvite');
}

/** Erin accepts the invite `code` opens, through the emulator's door for it: the HTTP status. */
async function accept(emulatorUrl: string, code: string): Promise<number> {
  const accepted = await fetch(`${emulatorUrl}/_emulator/groupInvites:accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, email: 'erin@acme.dev', issuer: 'https://accounts.acme.dev', subject: 'erin' }),
  });
  return accepted.status;
}

describe('an invite whose create answer is lost', () => {
  it('is deleted and made again, and the code kept is the one that opens the invite that stays', async () => {
    const emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    emulator.seed({ orgs: [{ name: 'acme' }] });
    let lost = 0;
    // The first create of an invite is made upstream, but its answer never reaches the client.
    const proxy = await startRewritingProxy(emulator.url, (request, body) =>
      request.method === 'POST' && request.path.startsWith('/iam/v2/groupInvites/') && lost++ === 0
        ? answerWith(503, { code: 14, message: 'Unavailable: lost', details: [] })
        : body,
    );
    const client = createClient({ baseUrl: proxy.url, token: TOKEN });
    try {
      const desired = ERIN;
      const live = await readLiveState(client, { org: { name: 'acme' } });
      const codes: InviteCodeRecord[] = [];
      const result = await apply(plan(desired, live, { now: Date.now() }), client, {
        onInviteCode: (r) => codes.push(r),
      });
      expect(result.ok, JSON.stringify(result.failed)).toBe(true);
      expect(lost).toBeGreaterThanOrEqual(2);
      expect(codes).toHaveLength(1);
      expect(await invitesOf(client)).toHaveLength(1);
      expect(await accept(emulator.url, codes[0]!.code)).toBe(200);
    } finally {
      await client.close();
      await proxy.close();
      await emulator.close();
    }
  });

  it('whose answer is lost twice: both are deleted, apply says so, and the next apply invites them (no invite left that nobody can open)', async () => {
    const emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    emulator.seed({ orgs: [{ name: 'acme' }] });
    let losing = true;
    const proxy = await startRewritingProxy(emulator.url, (request, body) =>
      losing && request.method === 'POST' && request.path.startsWith('/iam/v2/groupInvites/')
        ? answerWith(503, { code: 14, message: 'Unavailable: lost', details: [] })
        : body,
    );
    const client = createClient({ baseUrl: proxy.url, token: TOKEN });
    try {
      const invites = () => invitesOf(client);
      const codes: InviteCodeRecord[] = [];
      const first = await apply(
        plan(ERIN, await readLiveState(client, { org: { name: 'acme' } }), { now: Date.now() }),
        client,
        { onInviteCode: (r) => codes.push(r) },
      );
      expect(first.ok).toBe(false);
      expect(first.failed.map((f) => f.error).join('\n')).toContain(
        'both were deleted, so the next apply invites them again',
      );
      expect(await invites()).toEqual([]);
      expect(codes).toEqual([]);
      losing = false;
      const next = plan(ERIN, await readLiveState(client, { org: { name: 'acme' } }), { now: Date.now() });
      expect(next.steps.map((s) => `${s.action} ${s.address}`)).toEqual(['create groupInvite:erin@acme.dev=viewer']);
      expect((await apply(next, client, { onInviteCode: (r) => codes.push(r) })).ok).toBe(true);
      expect(codes).toHaveLength(1);
    } finally {
      await client.close();
      await proxy.close();
      await emulator.close();
    }
  });
  it('whose answer is lost on the last attempt the client has: looked for before giving up, never left as an invite nobody can open', async () => {
    const emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    emulator.seed({ orgs: [{ name: 'acme' }] });
    let lost = 0;
    const proxy = await startRewritingProxy(emulator.url, (request, body) =>
      request.method === 'POST' && request.path.startsWith('/iam/v2/groupInvites/') && lost++ === 0
        ? answerWith(503, { code: 14, message: 'Unavailable: lost', details: [] })
        : body,
    );
    // One attempt per call: the first lost answer is also the last (as the tenth is with the defaults).
    const client = createClient({ baseUrl: proxy.url, token: TOKEN, retry: { maxAttempts: 1 } });
    try {
      const codes: InviteCodeRecord[] = [];
      const result = await apply(
        plan(ERIN, await readLiveState(client, { org: { name: 'acme' } }), { now: Date.now() }),
        client,
        { onInviteCode: (r) => codes.push(r) },
      );
      expect(result.ok, JSON.stringify(result.failed)).toBe(true);
      expect(codes).toHaveLength(1);
      expect(await invitesOf(client)).toHaveLength(1);
      expect(await accept(emulator.url, codes[0]!.code)).toBe(200);
    } finally {
      await client.close();
      await proxy.close();
      await emulator.close();
    }
  });
});

describe('an invite whose create is answered 2xx with a body that cannot be read', () => {
  it('is deleted again (the service made it, its code is unknown), and the next apply invites them', async () => {
    const emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    emulator.seed({ orgs: [{ name: 'acme' }] });
    let garbling = true;
    const proxy = await startRewritingProxy(emulator.url, (request, body) =>
      garbling && request.method === 'POST' && request.path.startsWith('/iam/v2/groupInvites/')
        ? answerWith(200, 'garbled')
        : body,
    );
    const client = createClient({ baseUrl: proxy.url, token: TOKEN });
    try {
      const invites = () => invitesOf(client);
      const codes: InviteCodeRecord[] = [];
      const first = await apply(
        plan(ERIN, await readLiveState(client, { org: { name: 'acme' } }), { now: Date.now() }),
        client,
        { onInviteCode: (r) => codes.push(r) },
      );
      expect(first.ok).toBe(false);
      expect(first.failed).toHaveLength(1);
      expect(first.failed[0]!.error).toContain('groupInvite:erin@acme.dev=viewer: ');
      expect(first.failed[0]!.error).toContain('the response body is not a JSON object');
      expect(first.failed[0]!.error).toContain('the invite was deleted again, so the next apply invites them anew');
      expect(await invites()).toEqual([]);
      garbling = false;
      const next = plan(ERIN, await readLiveState(client, { org: { name: 'acme' } }), { now: Date.now() });
      expect(next.steps.map((s) => `${s.action} ${s.address}`)).toEqual(['create groupInvite:erin@acme.dev=viewer']);
      expect((await apply(next, client, { onInviteCode: (r) => codes.push(r) })).ok).toBe(true);
      expect(codes).toHaveLength(1);
    } finally {
      await client.close();
      await proxy.close();
      await emulator.close();
    }
  });
});

describe('an invite whose code cannot be kept (issue 49)', () => {
  it('is deleted again when the code cannot be written (a full disk), and the next apply invites them', async () => {
    const emulator = await startEmulator({ port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    emulator.seed({ orgs: [{ name: 'acme' }] });
    const client = createClient({ baseUrl: emulator.url, token: TOKEN });
    try {
      const invites = () => invitesOf(client);
      const full = await apply(
        plan(ERIN, await readLiveState(client, { org: { name: 'acme' } }), { now: Date.now() }),
        client,
        {
          onInviteCode: () => {
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          },
        },
      );
      expect(full.ok).toBe(false);
      expect(full.failed.map((f) => f.error).join('\n')).toContain(
        'groupInvite:erin@acme.dev=viewer: its code could not be kept (ENOSPC: no space left on device, write); the invite was deleted again, so the next apply invites them anew',
      );
      expect(await invites()).toEqual([]);
      const codes: InviteCodeRecord[] = [];
      expect(
        (
          await apply(plan(ERIN, await readLiveState(client, { org: { name: 'acme' } }), { now: Date.now() }), client, {
            onInviteCode: (r) => codes.push(r),
          })
        ).ok,
      ).toBe(true);
      expect(codes).toHaveLength(1);
      expect(await invites()).toHaveLength(1);
    } finally {
      await client.close();
      await emulator.close();
    }
  });

  it('that cannot be deleted again either: the failure says so, why, and how to replace it (never only the delete that failed)', async () => {
    const emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    emulator.seed({ orgs: [{ name: 'acme' }] });
    // The delete of the invite is refused (a token that may invite but not revoke).
    const proxy = await startRewritingProxy(emulator.url, (_request, body) => body, {
      refuse: (request) =>
        request.method === 'DELETE' && request.path.startsWith('/iam/v2/groupInvites/')
          ? answerWith(403, { code: 7, message: 'Permission denied: groupInvites.delete', details: [] })
          : undefined,
    });
    const client = createClient({ baseUrl: proxy.url, token: TOKEN });
    try {
      const result = await apply(
        plan(ERIN, await readLiveState(client, { org: { name: 'acme' } }), { now: Date.now() }),
        client,
        {
          onInviteCode: () => {
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          },
        },
      );
      expect(result.ok).toBe(false);
      expect(result.failed).toHaveLength(1);
      expect(result.failed[0]!.code).toBe('APPLY_INVITE_CODE_NOT_KEPT');
      const error = result.failed[0]!.error;
      expect(error).toContain(
        'groupInvite:erin@acme.dev=viewer: its code could not be kept (ENOSPC: no space left on device, write)',
      );
      expect(error).toContain('Permission denied: groupInvites.delete');
      expect(error).toContain('--reinvite erin@acme.dev');
      // The invite stays open: the next plan keeps it as pending, so only --reinvite replaces it.
      const live = await readLiveState(client, { org: { name: 'acme' } });
      expect(live.resources.filter((r) => r.kind === 'groupInvite')).toHaveLength(1);
    } finally {
      await client.close();
      await proxy.close();
      await emulator.close();
    }
  });
});
