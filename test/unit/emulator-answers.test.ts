/**
 * The emulator keeps its own contract in what it answers too: with checkAnswers (on in every
 * emulator a test starts: the last test here holds that), an answer that breaks the contract's schema is a 500 that names
 * the schema and what is wrong, never served as if it were right.
 */
import { describe, expect, it } from 'vitest';
import { replyBodyText } from '../../src/emulator/exchange.js';
import { EmulatorService } from '../../src/emulator/service.js';

const TOKEN = 'answers-owner-token';
const service = (checkAnswers: boolean) =>
  new EmulatorService({
    tokens: [{ token: TOKEN, role: 'owner' }],
    clock: () => Date.UTC(2026, 10, 26),
    pageTokenTtlMs: 60_000,
    checkAnswers,
  });
const request = (method: string, path: string, body?: unknown) => ({
  method,
  path,
  query: new URLSearchParams(),
  body,
  authorization: `Bearer ${TOKEN}`,
});

describe('answers held to the contract', () => {
  it('a conforming answer is served as it is', () => {
    const s = service(true);
    const created = s.handle(request('POST', '/iam/v2/groups', { name: 'acme' }));
    expect(created.status).toBe(200);
    expect(s.handle(request('GET', '/iam/v2/groups')).status).toBe(200);
    expect(s.handle(request('GET', '/ping/v2/ping')).status).toBe(200);
    expect(s.handle(request('GET', '/iam/v2/groups/nope')).status).toBe(400); // not a uid: the contract's {uid}
    expect(s.handle(request('GET', `/iam/v2/groups/${'0'.repeat(40)}`)).status).toBe(404);
  });

  it("each answer is held to the schema its own operation declares: an invite's create answer carries its code (GroupInviteCreated), a read of it never does (GroupInvite)", () => {
    const s = service(true);
    const org = (s.handle(request('POST', '/iam/v2/groups', { name: 'acme' })).body as { uid: string }).uid;
    const viewer = s.builtinRoleUids().viewer!;
    const created = s.handle(
      request('POST', `/iam/v2/groupInvites/${org}`, {
        role: viewer,
        expirationTime: '2026-12-01T00:00:00Z',
        email: 'ada@example.com',
      }),
    );
    expect([created.status, replyBodyText(created.body)]).toEqual([200, expect.stringContaining('"code":')]);
    const uid = (created.body as { uid: string }).uid;
    const read = s.handle(request('GET', `/iam/v2/groupInvites/${uid}`));
    expect(read.status, replyBodyText(read.body)).toBe(200);
    expect(replyBodyText(read.body)).not.toContain('"code"');
    // Readmes, terms and ping have answers of their own too.
    const repo = (s.handle(request('POST', `/registry/v2/repos/${org}`, { name: 'app' })).body as { uid: string }).uid;
    expect(s.handle(request('GET', `/registry/v2/repos/${repo}/readme`)).status).toBe(200);
    expect(s.handle(request('GET', `/iam/v2/terms/${org}`)).status).toBe(200);
  });

  it('an answer that breaks it is a 500 naming the schema and the member; without the check it would have gone out', () => {
    for (const checked of [true, false]) {
      const s = service(checked);
      const uid = (s.handle(request('POST', '/iam/v2/groups', { name: 'acme' })).body as { uid: string }).uid;
      // A bug planted in the store: a name that is not a string.
      s.store.get('group', uid)!.data.name = 42 as unknown as string;
      const reply = s.handle(request('GET', `/iam/v2/groups/${uid}`));
      if (checked) {
        expect(reply.status).toBe(500);
        expect(replyBodyText(reply.body)).toContain('breaks its contract (Group): /name must be string');
        const list = s.handle(request('GET', '/iam/v2/groups'));
        expect([list.status, replyBodyText(list.body)]).toEqual([
          500,
          expect.stringContaining('(GroupList): /groups/0/name must be string'),
        ]);
      } else {
        expect(reply.status).toBe(200);
      }
    }
  });
});
