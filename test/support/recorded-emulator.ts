/**
 * One emulator for a test file behind a pass-through recording proxy (rewriting-proxy.ts):
 * started and seeded before its tests, closed after them, as useRawServer does for raw servers.
 * `env` points the CLI at the proxy, so `proxy.seen` and `proxy.exchanges` hold every request the
 * CLI sent and every answer it got; `emulator` is the server itself (for a request the CLI would
 * not send).
 */
import { afterAll, beforeAll } from 'vitest';
import { startEmulator, type Emulator, type SeedDocument } from '../../src/emulator/index.js';
import { startRewritingProxy, type RewritingProxy } from './rewriting-proxy.js';

export function useRecordedEmulator(options: { token: string; seed: SeedDocument; env?: Record<string, string> }): {
  readonly emulator: Emulator;
  readonly proxy: RewritingProxy;
  readonly env: Record<string, string>;
} {
  let emulator: Emulator;
  let proxy: RewritingProxy;
  let env: Record<string, string>;
  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: options.token, role: 'owner' }] });
    emulator.seed(options.seed);
    proxy = await startRewritingProxy(emulator.url, (_request, body) => body);
    env = { PLATFORM_API_URL: proxy.url, PLATFORM_TOKEN: options.token, ...options.env };
  });
  afterAll(async () => {
    await proxy?.close();
    await emulator?.close();
  });
  return {
    get emulator() {
      return emulator;
    },
    get proxy() {
      return proxy;
    },
    get env() {
      return env;
    },
  };
}
