/**
 * The spec's own acceptance rules (shared/spec/platform-api-v2.md, "Errors" rules 1–4, and the
 * Limits' page tokens), each a test of its own against the emulator (issue 48), and 405 on every
 * path of the contract for every method it lacks — whether or not the uid exists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { OWNER, startTestEmulator } from './emulator-helpers.js';

const DOC = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'schemas', 'platform-api-v2.openapi.json'), 'utf8'),
) as { paths: Record<string, Record<string, unknown>> };
const DAY = 86_400_000;

describe("the spec's acceptance rules", () => {
  let emu: Emulator;
  let org = '';
  let now = Date.parse('2026-11-28T12:00:00.000Z');
  const call = async (method: string, path: string, body?: string) => {
    const res = await fetch(`${emu.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${OWNER}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      allow: res.headers.get('allow'),
      body: (text === '' ? undefined : JSON.parse(text)) as {
        code: number;
        details: { '@type': string; [k: string]: unknown }[];
      } & Record<string, unknown>,
    };
  };
  const detail = (body: { details: { '@type': string }[] }, type: string) =>
    body.details.find((d) => d['@type'].endsWith(`.${type}`)) as Record<string, unknown> | undefined;
  beforeAll(async () => {
    emu = await startTestEmulator({
      clock: () => now,
      seed: {
        orgs: [
          {
            name: 'acme',
            repos: [{ name: 'app' }],
            identities: Array.from({ length: 5 }, (_, i) => ({ name: `bot-${i}`, servicePrincipal: 'COSIGNED' })),
          },
        ],
      },
    });
    org = ((await call('GET', '/iam/v2/groups')).body as unknown as { groups: { uid: string }[] }).groups[0]!.uid;
  });
  afterAll(() => emu.close());

  it('1. identity creation with an empty body: code 3, INVALID_ARGUMENT, a field violation on name quoting its pattern', async () => {
    for (const body of [undefined, '{}']) {
      const r = await call('POST', `/iam/v2/identities/${org}`, body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(3);
      expect(detail(r.body, 'ErrorInfo')).toMatchObject({ reason: 'INVALID_ARGUMENT' });
      const violations = detail(r.body, 'BadRequest')!.fieldViolations as { field: string; description: string }[];
      expect(violations.find((v) => v.field === 'name')?.description).toContain('^[a-z0-9 ._-]{1,}$');
    }
  });

  it('2. deleting a group that has children: code 9, FAILED_PRECONDITION, a RESOURCE_NOT_EMPTY violation', async () => {
    const r = await call('DELETE', `/iam/v2/groups/${org}`);
    expect(r.body.code).toBe(9);
    expect(detail(r.body, 'ErrorInfo')).toMatchObject({ reason: 'FAILED_PRECONDITION' });
    expect((detail(r.body, 'PreconditionFailure')!.violations as { type: string }[]).map((v) => v.type)).toContain(
      'RESOURCE_NOT_EMPTY',
    );
  });

  it('3. a resource that does not exist: HTTP 404, NOT_FOUND, a ResourceInfo detail', async () => {
    const r = await call('GET', `/iam/v2/identities/${org}/0000000000000000`);
    expect(r.status).toBe(404);
    expect(detail(r.body, 'ErrorInfo')).toMatchObject({ reason: 'NOT_FOUND' });
    expect(detail(r.body, 'ResourceInfo')).toMatchObject({ resourceType: 'identity' });
  });

  it('4. an expired page token: no error, the query restarts from the beginning', async () => {
    const first = await call('GET', '/iam/v2/identities?page_size=2&order_by=name');
    const token = first.body.nextPageToken as string;
    expect(token).toBeTruthy();
    now += 4 * DAY; // past the 3 days a token lives
    const again = await call(
      'GET',
      `/iam/v2/identities?page_size=2&order_by=name&page_token=${encodeURIComponent(token)}`,
    );
    expect(again.status).toBe(200);
    expect(again.body.identities).toEqual(first.body.identities);
  });

  it('every path answers 405, with Allow naming its methods, to each method it lacks — whether or not the uid exists', async () => {
    const wrong: string[] = [];
    for (const [template, item] of Object.entries(DOC.paths)) {
      const declared = ['get', 'post', 'patch', 'delete', 'put']
        .filter((m) => item[m] !== undefined)
        .map((m) => m.toUpperCase());
      const path = template.replace('{uid}', `${'f'.repeat(40)}/${'e'.repeat(16)}`).replace('{parent}', 'f'.repeat(40));
      for (const method of ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'].filter((m) => !declared.includes(m))) {
        const r = await call(method, path, method === 'GET' || method === 'DELETE' ? undefined : '{}');
        if (r.status !== 405 || r.allow?.split(', ').sort().join() !== [...declared].sort().join())
          wrong.push(`${method} ${template}: ${r.status} (Allow: ${r.allow})`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
