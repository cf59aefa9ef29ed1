/**
 * What a server (or a proxy in front of it) answers is untrusted (DESIGN.md §4): a listing that
 * stays incomplete refuses creates as well as deletes; control characters in live text never
 * reach the terminal raw; a create that collides with something the read did not see says that
 * someone else is changing the org. Real emulator behind a rewriting proxy, over loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { startRewritingProxy, type RewritingProxy } from '../support/rewriting-proxy.js';
import { ACME, applyManifests, runCli } from './cli-harness.js';

const OWNER = 'untrusted-server-owner-token-0c55';
const writes = (emulator: Emulator) => emulator.requestLog.filter((e) => e.method !== 'GET');

describe('a listing that stays incomplete', () => {
  let emulator: Emulator;
  let proxy: RewritingProxy;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, tokens: [{ token: OWNER, role: 'owner' }] });
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
    const run = await runCli(['apply', ACME, '--auto-approve'], { env: { PLATFORM_API_URL: proxy.url, PLATFORM_TOKEN: OWNER } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot create 1 identity (identity:engineering/ci-bot): the live read of identity was incomplete');
    expect(run.stderr).toContain('a create could duplicate; run plan again');
    expect(writes(emulator)).toEqual([]);
  });
});
