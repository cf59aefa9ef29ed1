/**
 * Runs the built CLI (`bin/platform-sync`) as a child process with a clean environment: none of
 * the caller's PLATFORM_* settings or GITHUB_STEP_SUMMARY leak in, and colour is off. The demo
 * drives the real CLI through it, and so do the end-to-end tests.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { findPackageFile } from '../io/package-file.js';

/** Exit code and everything the command printed. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

const CLI_BIN = findPackageFile(join('bin', 'platform-sync'));

export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of ['PLATFORM_TOKEN', 'PLATFORM_API_URL', 'GITHUB_STEP_SUMMARY']) delete env[name];
  Object.assign(env, options.env);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? 1, stdout, stderr }));
  });
}
