/**
 * End-to-end helpers: run the built CLI (`bin/platform-sync`, needs `npm run build`) as a child
 * process, and put an org into a real emulator through the library, the way a previous
 * `apply` would have.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/types.js';
import { apply } from '../../src/apply/index.js';
import { runCli as runBuiltCli, type CliRun } from '../../src/cli/run-cli.js';
import { planFromManifests } from '../../src/pipeline.js';

export type { CliRun };

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const BIN = join(REPO_ROOT, 'bin', 'platform-sync');
export const ACME = join(REPO_ROOT, 'examples', 'acme');

/** Runs `platform-sync args…` from the repo root unless `cwd` says otherwise (clean environment). */
export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  return runBuiltCli(args, { cwd: REPO_ROOT, ...options });
}

/** A fresh temporary directory and a function that removes it. */
export function makeTempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `platform-sync-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Makes live state match the manifests at `paths` through the library (load, read, plan, apply). */
export async function applyManifests(baseUrl: string, token: string, paths: string[]): Promise<void> {
  const client = createClient({ baseUrl, token });
  try {
    const { plan } = await planFromManifests(paths, client);
    const result = await apply(plan, client, { concurrency: 8 });
    if (!result.ok) throw new Error(`setup apply failed: ${JSON.stringify(result.failed)}`);
  } finally {
    await client.close();
  }
}

/** A client for out-of-band changes in a test; closed by the caller. */
export function openClient(baseUrl: string, token: string): ApiClient {
  return createClient({ baseUrl, token });
}
