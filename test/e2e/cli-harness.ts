/**
 * End-to-end helpers: run the built CLI (`bin/platform-sync`, needs `npm run build`) as a child
 * process, and put an org into a real emulator through the library, the way a previous
 * `apply` would have.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/types.js';
import { apply } from '../../src/apply/index.js';
import { planFromManifests } from '../../src/cli/shared.js';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const BIN = join(REPO_ROOT, 'bin', 'platform-sync');
export const ACME = join(REPO_ROOT, 'examples', 'acme');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `platform-sync args…` with a clean environment: nothing from the caller's PLATFORM_*
 * or GITHUB_STEP_SUMMARY leaks in; `env` adds what the test wants.
 */
export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of ['PLATFORM_TOKEN', 'PLATFORM_API_URL', 'GITHUB_STEP_SUMMARY']) delete env[name];
  Object.assign(env, options.env);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? 1, stdout, stderr }));
  });
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
