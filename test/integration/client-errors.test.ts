/**
 * API failures surface as typed ApiErrors (gRPC code and name, HTTP status, details, what
 * was being done) — and the token never shows up in any error, event or verbose line, even
 * when it is also a resource name, a path segment and a query value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { createClient, formatRequestEvent, type ClientRetryEvent } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import type { ApiClient, RequestEvent } from '../../src/api/types.js';
import { createTestClient, OWNER_TOKEN, startTestEmulator, VIEWER_TOKEN } from './client-harness.js';
import { getReadme, updateReadme } from '../support/readme.js';

let emulator: Emulator;
let client: ApiClient;
let orgUid: string;
const events: RequestEvent[] = [];
const retries: ClientRetryEvent[] = [];

beforeAll(async () => {
  emulator = await startTestEmulator({
    seed: {
      orgs: [{ name: 'acme', repos: [{ name: 'nginx', tags: [{ name: '1.0', digest: `sha256:${'a'.repeat(64)}` }] }] }],
    },
  });
  client = createTestClient(emulator, { onRequest: (e) => events.push(e), onRetry: (e) => retries.push(e) });
  orgUid = (await client.list('group', { name: 'acme' })).items[0]!.uid;
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('typed API errors', () => {
  it('404 carries NOT_FOUND, ResourceInfo and names the request', async () => {
    const uid = `${orgUid}/0123456789abcdef`;
    const err = await failure(client.get('repo', uid));
    expect(err).toMatchObject({
      status: 404,
      grpcCode: 5,
      grpcName: 'NOT_FOUND',
      method: 'GET',
      path: `/registry/v2/repos/${uid}`,
      code: 'API_NOT_FOUND',
    });
    expect(err.resourceInfo).toMatchObject({ resourceName: uid });
    expect(err.message).toContain(`get repo ${uid}: GET /registry/v2/repos/${uid} failed: HTTP 404 NOT_FOUND (5)`);
  });

  it('a create under a missing parent names what was being created', async () => {
    const parent = `${orgUid}/fedcba9876543210`;
    const err = await failure(client.create('identity', parent, { name: 'ci-bot' }));
    expect(err.status).toBe(404);
    expect(err.message).toMatch(
      new RegExp(`^create identity "ci-bot" under ${parent}: POST /iam/v2/identities/${parent} failed`),
    );
  });

  it('a create of a kind with no name says what it is by its create fields', async () => {
    const parent = `${orgUid}/fedcba9876543210`;
    const binding = await failure(client.create('roleBinding', parent, { identityUid: 'i-1', roleUid: 'r-2' }));
    expect(binding.message).toMatch(/^create roleBinding \(identityUid "i-1", roleUid "r-2"\) under /);
    const terms = await failure(client.create('terms', parent, { documentIds: ['tos-2024'] }));
    expect(terms.message).toMatch(/^create terms \(documentIds \["tos-2024"\]\) under /);
    expect(binding.message + terms.message).not.toContain('undefined');
  });

  it('400 carries INVALID_ARGUMENT with BadRequest field violations', async () => {
    const err = await failure(client.create('identity', orgUid, {}));
    expect(err).toMatchObject({ status: 400, grpcCode: 3, grpcName: 'INVALID_ARGUMENT' });
    expect(err.badRequest?.fieldViolations.map((v) => v.field)).toContain('name');
    expect(err.errorInfo?.reason).toBe('INVALID_ARGUMENT');
  });

  it('deleting a non-empty repo is FAILED_PRECONDITION with RESOURCE_NOT_EMPTY', async () => {
    const repo = (await client.list('repo', { childrenOf: orgUid })).items[0]!;
    const err = await failure(client.delete('repo', repo.uid));
    expect(err).toMatchObject({ status: 400, grpcCode: 9, grpcName: 'FAILED_PRECONDITION' });
    expect(err.preconditionFailure?.violations[0]?.type).toBe('RESOURCE_NOT_EMPTY');
  });

  it('403 for writes with a read-only token, 401 without or with a wrong token', async () => {
    const viewer = createClient({ baseUrl: emulator.url, token: VIEWER_TOKEN });
    const anonymous = createClient({ baseUrl: emulator.url });
    const wrong = createClient({ baseUrl: emulator.url, token: 'tok-wrong-5ecret-0000' });
    try {
      expect((await viewer.get('group', orgUid)).uid).toBe(orgUid);
      expect(await failure(viewer.create('repo', orgUid, { name: 'x' }))).toMatchObject({
        status: 403,
        grpcCode: 7,
        grpcName: 'PERMISSION_DENIED',
      });
      expect(await failure(anonymous.list('group'))).toMatchObject({
        status: 401,
        grpcCode: 16,
        grpcName: 'UNAUTHENTICATED',
      });
      const bad = await failure(wrong.get('group', orgUid));
      expect(bad).toMatchObject({ status: 401, grpcName: 'UNAUTHENTICATED' });
      expect(bad.message).not.toContain('tok-wrong-5ecret-0000');
      expect(await anonymous.ping()).toBe(true); // ping needs no token
    } finally {
      await Promise.all([viewer.close(), anonymous.close(), wrong.close()]);
    }
  });

  it('a DELETE of a missing resource succeeds only with ignoreMissing', async () => {
    const uid = `${orgUid}/00000000000000aa`;
    await expect(client.delete('subscription', uid, { ignoreMissing: true })).resolves.toBeUndefined();
    expect((await failure(client.delete('subscription', uid))).status).toBe(404);
  });

  it('updates with an exact updateMask and round-trips a readme', async () => {
    const repo = (await client.list('repo', { childrenOf: orgUid })).items[0]!;
    const updated = await client.update('repo', repo.uid, { description: 'Hardened' }, ['description']);
    expect(updated.description).toBe('Hardened');
    await updateReadme(client, repo.uid, '# nginx\n');
    expect(await getReadme(client, repo.uid)).toBe('# nginx\n');
    const err = await failure(client.update('repo', repo.uid, { colour: 'red' }, ['colour']));
    expect(err.status).toBe(400);
    expect(err.message).toContain(`update repo ${repo.uid} (colour)`);
  });
});

describe('the token never leaks', () => {
  it('not into errors, request events, retry events or verbose lines — even when it is data', async () => {
    const messages: string[] = [];
    const collect = async (p: Promise<unknown>) => {
      const err = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      if (err instanceof Error)
        messages.push(
          err.message,
          String(err.stack),
          JSON.stringify(err),
          JSON.stringify((err as ApiError).details ?? []),
        );
    };
    // The token as a resource name, twice (the second is ALREADY_EXISTS).
    await client.create('identity', orgUid, { name: OWNER_TOKEN });
    await collect(client.create('identity', orgUid, { name: OWNER_TOKEN }));
    // … as a uid in the path, a parent, a filter value and a bad field.
    await collect(client.get('identity', OWNER_TOKEN));
    await collect(client.create('repo', `${orgUid}/${OWNER_TOKEN}`, { name: OWNER_TOKEN }));
    // Not a uid: refused by the contract's uidp.children_of (code 3), the value never echoed unredacted.
    await collect(client.list('repo', { name: OWNER_TOKEN, childrenOf: OWNER_TOKEN }));
    await collect(client.list('repo', { filters: { [OWNER_TOKEN]: OWNER_TOKEN } }));
    await collect(client.create('identity', orgUid, { name: `Bad ${OWNER_TOKEN}`, [OWNER_TOKEN]: 1 }));
    // … and through retries that give up.
    emulator.setFaults({ seed: 1, errorRate: 1, retryAfterSeconds: 0 });
    await collect(client.get('identity', `${orgUid}/${OWNER_TOKEN}`));
    emulator.setFaults({});

    expect(messages).toHaveLength(7 * 4);
    const verbose = events.map(formatRequestEvent);
    const everything = [
      ...messages,
      ...verbose,
      ...events.map((e) => JSON.stringify(e)),
      ...retries.map((e) => JSON.stringify(e)),
    ].join('\n');
    expect(everything).toContain('[REDACTED]');
    expect(everything).not.toContain(OWNER_TOKEN);
    expect(everything.toLowerCase()).not.toContain('authorization');
  });
});
