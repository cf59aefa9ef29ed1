/**
 * Explicit bootstrap (DESIGN.md §4): an org that is not visible — it does not exist yet, or the
 * URL, the tenant or the token's scope is wrong, or a proxy answers with nothing — is an error
 * naming the org, the base URL and the causes, with zero writes; only `--bootstrap` creates it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { join } from 'node:path';
import { ACME, applyManifests, makeTempDir, runCli } from './cli-harness.js';

const OWNER = 'bootstrap-e2e-owner-token-1d7c';
const SCOPED = 'bootstrap-e2e-scoped-token-88e0';

const writes = (emulator: Emulator) => emulator.requestLog.filter((e) => e.method !== 'GET');

describe('an org that is not visible', () => {
  let emulator: Emulator;
  let env: Record<string, string>;
  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: OWNER, role: 'owner' }] });
    env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: OWNER };
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('is an error for plan, apply, drift and export without --bootstrap, naming the org, the URL and the causes, with zero writes', async () => {
    for (const args of [
      ['plan', ACME],
      ['apply', ACME, '--auto-approve'],
      ['drift', ACME],
      ['export', '--org', 'acme'],
    ]) {
      const run = await runCli(args, { env });
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toContain(
        `org "acme" is not visible at ${emulator.url}: no root group of that name is visible to this token.`,
      );
      expect(run.stderr).toContain(
        'Likely causes: a wrong base URL, a token of another tenant, or a token scoped below the org.',
      );
      expect(run.stderr).toContain('platform-sync apply --bootstrap');
      expect(run.stdout).toBe('');
    }
    expect(writes(emulator)).toEqual([]);
  });

  it('is created by plan --bootstrap and apply --bootstrap, after which plain plan sees it', async () => {
    const planned = await runCli(['plan', ACME, '--bootstrap', '--detailed-exitcode'], { env });
    expect(planned.code).toBe(2);
    expect(planned.stdout).toContain('+ create org');
    expect(writes(emulator)).toEqual([]);
    const applied = await runCli(['apply', ACME, '--bootstrap', '--auto-approve'], { env });
    expect(applied.code).toBe(0);
    expect((await runCli(['plan', ACME, '--detailed-exitcode'], { env })).code).toBe(0);
  });
});

describe('a token scoped below the org', () => {
  let emulator: Emulator;
  const temp = makeTempDir('scoped');
  beforeAll(async () => {
    const statePath = join(temp.dir, 'state.json');
    emulator = await startEmulator({
      checkAnswers: true,
      port: 0,
      tokens: [{ token: OWNER, role: 'owner' }],
      statePath,
    });
    await applyManifests(emulator.url, OWNER, [ACME]);
    const groups = (await (
      await fetch(`${emulator.url}/iam/v2/groups?name=engineering`, { headers: { authorization: `Bearer ${OWNER}` } })
    ).json()) as { groups: { uid: string }[] };
    await emulator.close();
    // The same state, now with a token that sees only engineering's subtree.
    emulator = await startEmulator({
      checkAnswers: true,
      port: 0,
      tokens: [{ token: SCOPED, role: 'owner', scope: groups.groups[0]!.uid }],
      statePath,
    });
  });
  afterAll(async () => {
    await emulator?.close();
    temp.remove();
  });

  it('sees no org and plans no second one: exit 1, zero writes', async () => {
    const env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: SCOPED };
    // The org is there: the scoped token sees its own subtree, just not the root.
    const visible = (await (
      await fetch(`${emulator.url}/iam/v2/groups`, { headers: { authorization: `Bearer ${SCOPED}` } })
    ).json()) as { groups: { name: string }[] };
    expect(visible.groups.map((g) => g.name)).toContain('engineering');
    const plan = await runCli(['plan', ACME], { env });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('org "acme" is not visible');
    const drift = await runCli(['drift', ACME], { env });
    expect(drift.code).toBe(1);
    expect(writes(emulator)).toEqual([]);
  });
});

describe('a proxy that answers 200 with nothing, or with {}', () => {
  let server: Server;
  let body = '';
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.method ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each([
    ['an empty 200', '', 'the response body is empty (HTTP 200), where the API sends a JSON object'],
    ['{}', '{}', 'the list envelope has no array "groups" of objects with a uid'],
  ])('%s is an error, not an absent org, even with --bootstrap; nothing is written', async (_what, text, message) => {
    body = text;
    seen.length = 0;
    const env = {
      PLATFORM_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      PLATFORM_TOKEN: OWNER,
    };
    for (const args of [
      ['plan', ACME],
      ['apply', ACME, '--bootstrap', '--auto-approve'],
      ['drift', ACME],
    ]) {
      const run = await runCli(args, { env });
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toContain(message);
    }
    expect(seen.every((m) => m === 'GET')).toBe(true);
  });
});
