/**
 * The progress line of the live read (issue 50): on a terminal only, never on a pipe or in CI;
 * rewritten in place, cleared at the end; and the read reports every kind it lists.
 */
import { describe, expect, it } from 'vitest';
import { readProgress } from '../../src/cli/shared.js';
import type { CliContext } from '../../src/cli/context.js';
import { createClient } from '../../src/api/client.js';
import { readLiveState } from '../../src/live/index.js';
import { startEmulator } from '../../src/emulator/index.js';

function contextWith(isTTY: boolean, env: NodeJS.ProcessEnv): { ctx: CliContext; written: string[] } {
  const written: string[] = [];
  const stderr = { write: (t: string) => void written.push(t), isTTY, columns: 80 };
  return { ctx: { output: { stderr }, stderr, env } as unknown as CliContext, written };
}

describe('the live read progress line', () => {
  it('is drawn in place on a terminal and cleared at the end', () => {
    const { ctx, written } = contextWith(true, {});
    const p = readProgress(ctx);
    p.onReadProgress!(5, 12);
    p.onReadProgress!(12, 12);
    p.done();
    expect(written).toEqual([
      '\r\u001b[2KReading the live org: 5 of 12 kinds listed…',
      '\r\u001b[2KReading the live org: 12 of 12 kinds listed',
      '\r\u001b[2K',
    ]);
  });

  it('is never drawn on a pipe or in CI', () => {
    for (const [tty, env] of [
      [false, {}],
      [true, { CI: 'true' }],
    ] as const) {
      const { ctx, written } = contextWith(tty, env);
      const p = readProgress(ctx);
      expect(p.onReadProgress).toBeUndefined();
      p.done();
      expect(written).toEqual([]);
    }
  });

  it('is told of every kind the read lists, up to all of them', async () => {
    const emulator = await startEmulator({ port: 0, tokens: [{ token: 't', role: 'owner' }] });
    emulator.seed({ orgs: [{ name: 'acme', repos: [{ name: 'app' }] }] });
    const client = createClient({ baseUrl: emulator.url, token: 't' });
    try {
      const seen: [number, number][] = [];
      await readLiveState(client, { org: { name: 'acme' }, onProgress: (done, total) => seen.push([done, total]) });
      expect(seen.length).toBeGreaterThan(5);
      expect(seen.map(([d]) => d)).toEqual(seen.map((_, i) => i + 1));
      expect(seen.at(-1)![0]).toBe(seen.at(-1)![1]);
    } finally {
      await client.close();
      await emulator.close();
    }
  });
});
