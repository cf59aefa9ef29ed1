/**
 * The emulator keeps its own contract in what it answers too: with checkAnswers (on in every
 * unit and integration test), an answer that breaks the contract's schema is a 500 that names
 * the schema and what is wrong, never served as if it were right.
 */
import { describe, expect, it } from 'vitest';
import { EmulatorService, replyBodyText } from '../../src/emulator/service.js';

const TOKEN = 'answers-owner-token';
const service = (checkAnswers: boolean) => new EmulatorService({ tokens: [{ token: TOKEN, role: 'owner' }], clock: () => Date.UTC(2026, 10, 26), pageTokenTtlMs: 60_000, checkAnswers });
const request = (method: string, path: string, body?: unknown) => ({ method, path, query: new URLSearchParams(), body, authorization: `Bearer ${TOKEN}` });

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

  it('an answer that breaks it is a 500 naming the schema and the member; without the check it would have gone out', () => {
    for (const checked of [true, false]) {
      const s = service(checked);
      const uid = (s.handle(request('POST', '/iam/v2/groups', { name: 'acme' })).body as { uid: string }).uid;
      // A bug planted in the store: a name that is not a string.
      s.store.get('group', uid)!.data.name = 42 as unknown as string;
      const reply = s.handle(request('GET', `/iam/v2/groups/${uid}`));
      if (checked) {
        expect(reply.status).toBe(500);
        expect(replyBodyText(reply.body)).toContain("breaks its contract (Group): /name must be string");
        const list = s.handle(request('GET', '/iam/v2/groups'));
        expect([list.status, replyBodyText(list.body)]).toEqual([500, expect.stringContaining('(GroupList): /groups/0/name must be string')]);
      } else {
        expect(reply.status).toBe(200);
      }
    }
  });
});
