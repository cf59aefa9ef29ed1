/**
 * What a server (or a proxy in front of it) answers is untrusted (DESIGN.md §4): a listing that
 * stays incomplete refuses creates as well as deletes; control characters in live text never
 * reach the terminal raw; a create that collides with something the read did not see says that
 * someone else is changing the org; a base URL that would leak the token (plain http off the
 * machine, credentials in it) is refused before any request. Real emulator, behind a rewriting
 * proxy where a proxy is the point, over real HTTP.
 */
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { startRewritingProxy, type RewritingProxy } from '../support/rewriting-proxy.js';
import { ACME, applyManifests, openClient, runCli } from './cli-harness.js';

const OWNER = 'untrusted-server-owner-token-0c55';
const writes = (emulator: Emulator) => emulator.requestLog.filter((e) => e.method !== 'GET');

describe('a listing that stays incomplete', () => {
  let emulator: Emulator;
  let proxy: RewritingProxy;
  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: OWNER, role: 'owner' }] });
    await applyManifests(emulator.url, OWNER, [ACME]);
    // The proxy drops ci-bot from every identity listing but leaves totalCount counting it.
    proxy = await startRewritingProxy(emulator.url, (request, body) => {
      if (!request.path.startsWith('/iam/v2/identities?')) return body;
      const envelope = body as { identities: { name: string }[] };
      return { ...envelope, identities: envelope.identities.filter((i) => i.name !== 'ci-bot') };
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await emulator?.close();
  });

  it('refuses to create what the read may have missed: exit 1, the reason, no duplicate', async () => {
    emulator.clearRequestLog();
    const run = await runCli(['apply', ACME, '--auto-approve'], {
      env: { PLATFORM_API_URL: proxy.url, PLATFORM_TOKEN: OWNER },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'cannot create 1 identity (identity:engineering/ci-bot): the live read of identity was incomplete',
    );
    expect(run.stderr).toContain('a create could duplicate; run plan again');
    expect(writes(emulator)).toEqual([]);
  });
});

describe('a listing whose counts do not add up (found by the review)', () => {
  let emulator: Emulator;
  let proxy: RewritingProxy;
  let mode: 'stale-total' | 'no-total' | 'drop-group' = 'stale-total';
  type Envelope = Record<string, unknown> & { identities?: unknown[]; groups?: { name: string }[] };
  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: OWNER, role: 'owner' }] });
    await applyManifests(emulator.url, OWNER, [ACME]);
    proxy = await startRewritingProxy(emulator.url, (request, body) => {
      const url = new URL(request.path, 'http://x');
      if (!url.searchParams.has('uidp.descendants_of')) return body;
      const envelope = body as Envelope;
      if (url.pathname === '/iam/v2/identities' && mode === 'stale-total') {
        // The first page 2 identities of a claimed 3 and a token; every later page all the rest, still "3".
        const first = !url.searchParams.has('skip') && !url.searchParams.has('page_token');
        const identities = first ? envelope.identities!.slice(0, 2) : envelope.identities;
        return { identities, totalCount: '3', nextPageToken: first ? 't1' : 't2' };
      }
      if (url.pathname === '/iam/v2/identities' && mode === 'no-total')
        return { identities: envelope.identities!.slice(0, 3) };
      if (url.pathname === '/iam/v2/groups' && mode === 'drop-group') {
        // engineering/platform/edge left out, its identity, repo and bindings kept; the count agrees.
        const groups = envelope.groups!.filter((g) => g.name !== 'edge');
        return { groups, totalCount: String(groups.length) };
      }
      return body;
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await emulator?.close();
  });
  const plan = (...extra: string[]) =>
    runCli(['plan', ACME, ...extra], { env: { PLATFORM_API_URL: proxy.url, PLATFORM_TOKEN: OWNER } });

  it('items past a false totalCount refuse the creates of identities that exist, never dropped', async () => {
    mode = 'stale-total';
    const run = await plan();
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain(
      'the live read of identity was incomplete (identities: the server says more items follow the totalCount of 3: the page at skip 1 held',
    );
    expect(run.stdout + run.stderr).toMatch(/cannot create \d+ identit/);
  });

  it('a listing without totalCount cannot be checked: creates of that kind are refused', async () => {
    mode = 'no-total';
    const run = await plan();
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain(
      'identities: page 1 carried no totalCount (every list answer has one), so the read cannot be checked against it (read 3 times)',
    );
    expect(run.stdout + run.stderr).toMatch(/cannot create \d+ identit/);
  });

  it('a group missing from its listing while its children are listed is never created, --target or not', async () => {
    mode = 'drop-group';
    for (const extra of [[], ['--target', 'group:engineering/platform/edge']]) {
      const run = await plan(...extra);
      expect(run.code, extra.join(' ')).toBe(1);
      expect(run.stdout + run.stderr).toContain(
        'cannot create 1 group (group:engineering/platform/edge): the live read of group was incomplete',
      );
      expect(run.stdout + run.stderr).toContain(
        '3 listed resources name a parent missing from the groups listing (e.g. ',
      );
    }
    emulator.clearRequestLog();
    const apply = await runCli(['apply', ACME, '--auto-approve'], {
      env: { PLATFORM_API_URL: proxy.url, PLATFORM_TOKEN: OWNER },
    });
    expect(apply.code).toBe(1);
    expect(writes(emulator)).toEqual([]);
  });
});

describe('control characters in live text', () => {
  const HOSTILE = 'x\u001b[2J\u001b[HNo changes.\u001b[8m \u202eevil\u009b';
  let emulator: Emulator;
  let env: Record<string, string>;
  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: OWNER, role: 'owner' }] });
    await applyManifests(emulator.url, OWNER, [ACME]);
    env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: OWNER };
    const client = openClient(emulator.url, OWNER);
    try {
      const app = (await client.list('repo', { name: 'app' })).items[0]!;
      await client.update('repo', app.uid, { description: HOSTILE }, ['description']);
      const org = (await client.list('group', { name: 'acme' })).items[0]!;
      await client.create('identity', org.uid, { name: 'intruder', description: HOSTILE });
    } finally {
      await client.close();
    }
  });
  afterAll(async () => {
    await emulator?.close();
  });

  const RAW = /[\u001b\u009b\u202e]/;

  it('are escaped in the text views of plan, drift and apply, never sent raw', async () => {
    for (const args of [
      ['plan', ACME],
      ['drift', ACME],
      ['apply', ACME, '--auto-approve'],
    ]) {
      const run = await runCli(args, { env });
      expect(run.code, `${args[0]}: ${run.stderr}`).toBe(args[0] === 'drift' ? 2 : 0);
      expect(RAW.test(run.stdout + run.stderr), args[0]).toBe(false);
      expect(run.stdout, args[0]).toContain('x\\u001b[2J\\u001b[HNo changes.\\u001b[8m \\u{202e}evil\\u{9b}');
    }
  });
});

describe('base URLs that would leak the token', () => {
  let emulator: Emulator;
  let lan: string;
  beforeAll(async () => {
    // Listening on every interface, so the same server is reachable by a name that is not loopback.
    emulator = await startEmulator({
      checkAnswers: true,
      port: 0,
      host: '0.0.0.0',
      tokens: [{ token: OWNER, role: 'owner' }],
    });
    const address = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && !i.internal && i.family === 'IPv4')?.address;
    expect(address, 'this test needs a network interface besides loopback').toBeDefined();
    lan = `http://${address}:${new URL(emulator.url).port}`;
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('plain http to a host that is not loopback is refused before any request; --insecure-http allows it', async () => {
    emulator.clearRequestLog();
    const refused = await runCli(['plan', ACME], { env: { PLATFORM_API_URL: lan, PLATFORM_TOKEN: OWNER } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `is plain http to ${new URL(lan).hostname}, so the token would cross the network unencrypted`,
    );
    expect(emulator.requestLog).toEqual([]);
    const allowed = await runCli(['plan', ACME, '--insecure-http', '--bootstrap'], {
      env: { PLATFORM_API_URL: lan, PLATFORM_TOKEN: OWNER },
    });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(emulator.requestLog.length).toBeGreaterThan(0);
    expect(writes(emulator)).toEqual([]);
  });

  it('a URL with credentials is refused before any request and the password is never printed', async () => {
    emulator.clearRequestLog();
    const port = new URL(emulator.url).port;
    // Any spelling: a password holding / ? # or a backslash, or no scheme at all.
    const spellings = [
      `http://alice:S3cret@127.0.0.1:${port}`,
      'http://alice:S3cret@host:99999',
      `http://alice:S3/cret@127.0.0.1:${port}`,
      `http://alice:S3?cret@127.0.0.1:${port}`,
      `http://alice:S3#cret@127.0.0.1:${port}`,
      `http://alice:S3\\cret@127.0.0.1:${port}`,
      `alice:S3cret@127.0.0.1:${port}`,
    ];
    for (const url of spellings) {
      const run = await runCli(['drift', ACME], { env: { PLATFORM_API_URL: url, PLATFORM_TOKEN: OWNER } });
      expect(run.code).toBe(1);
      expect(run.stderr, url).toContain('carries credentials');
      expect(run.stderr, url).toContain('…@');
      expect(run.stdout + run.stderr, url).not.toContain('S3');
      expect(run.stdout + run.stderr, url).not.toContain('alice');
    }
    expect(emulator.requestLog).toEqual([]);
  });
});

describe('a create that collides with a writer the read did not see', () => {
  let emulator: Emulator;
  let proxy: RewritingProxy;
  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: OWNER, role: 'owner' }] });
    await applyManifests(emulator.url, OWNER, [ACME]);
    // As if another apply created ci-bot just after this one read the org: the read (consistently)
    // does not show it, the create meets it.
    proxy = await startRewritingProxy(emulator.url, (request, body) => {
      if (!request.path.startsWith('/iam/v2/identities?') && !request.path.startsWith('/iam/v2/roleBindings?'))
        return body;
      const envelope = body as {
        identities?: { name: string }[];
        roleBindings?: { identity?: { name?: string } }[];
        totalCount?: string;
      };
      const key = envelope.identities ? 'identities' : 'roleBindings';
      const all = (envelope[key] ?? []) as { name?: string; identity?: { name?: string } }[];
      const kept = all.filter((i) => i.name !== 'ci-bot' && i.identity?.name !== 'ci-bot');
      return { ...envelope, [key]: kept, totalCount: String(Number(envelope.totalCount) - (all.length - kept.length)) };
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await emulator?.close();
  });

  it('says another apply or a person is changing the org and that plan shows what is left', async () => {
    emulator.clearRequestLog();
    const run = await runCli(['apply', ACME, '--auto-approve'], {
      env: { PLATFORM_API_URL: proxy.url, PLATFORM_TOKEN: OWNER },
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /✗ create identity:engineering\/ci-bot: .*ALREADY_EXISTS \(6\).* — it was not there when this plan read the org, so another apply \(or a person\) is changing the org at the same time; the API has no lock/,
    );
    expect(run.stdout).toContain('Next: another apply (or a person) is changing this org at the same time');
    expect(run.stdout).not.toContain('fix the cause named above');
    // The one write it tried was the create that collided; nothing was duplicated.
    expect(writes(emulator).map((e) => `${e.method} ${e.status}`)).toEqual(['POST 409']);
  });
});
