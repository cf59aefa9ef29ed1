/**
 * Entry of the GitHub Action (action.yml runs `node dist/src/action/main.js`). Its runner comes
 * from the bundle when the build made one and the modules are the ones it was made from (the
 * bin's check, src/cli/launch.ts: dist/platform-sync-action.cjs beside dist/platform-sync.cjs),
 * else from dist/src. The bundle spares every step resolving and reading some 150 modules
 * (issue 63; docs/performance.md). This file imports nothing else up front.
 */
import { fileURLToPath } from 'node:url';
import { ACTION_BUNDLE_FILE, loadBundle, openCodeCache } from '../cli/launch.js';
import type { CliIo } from '../cli/context.js';
import type { ActionResult } from './run.js';

interface ActionEntry {
  runAction(io: CliIo): Promise<ActionResult>;
  /** Writes why a run failed, redacted and escaped like every other line of the log (src/action/run.ts). */
  reportFailure(err: unknown, env: NodeJS.ProcessEnv, stderr: NodeJS.WritableStream): void;
  processIo(): CliIo;
  /** Writes the bundle's code cache after the run (src/cli/launch.ts); nothing without a bundle. */
  saveCodeCache(): void;
}

async function loadAction(): Promise<ActionEntry> {
  const at = (path: string): string => fileURLToPath(new URL(path, import.meta.url));
  const bundle = loadBundle(at('../../platform-sync.cjs'), at('../cli/main.js'), openCodeCache());
  if (bundle !== undefined) {
    const { runAction, reportFailure } = bundle.part(ACTION_BUNDLE_FILE) as Pick<
      ActionEntry,
      'runAction' | 'reportFailure'
    >;
    return { runAction, reportFailure, processIo: bundle.cli.processIo, saveCodeCache: bundle.saveCodeCache };
  }
  const [{ runAction, reportFailure }, { processIo }] = await Promise.all([
    import('./run.js'),
    import('../cli/context.js'),
  ]);
  return { runAction, reportFailure, processIo, saveCodeCache: () => {} };
}

loadAction().then(
  async ({ runAction, reportFailure, processIo, saveCodeCache }) => {
    try {
      const result = await runAction(processIo());
      saveCodeCache();
      process.exitCode = result.stepExit;
    } catch (err) {
      // A message can quote a request's path, a file name from the pull request or a token: it
      // goes through the same escape and redaction as every other line (found by the review).
      reportFailure(err, process.env, process.stderr);
      process.exitCode = 1;
    }
  },
  (err: unknown) => {
    // The runner's own modules could not be loaded (a broken install), so neither can the escape:
    // the error's code says what failed, and its message — paths of the install — is not written.
    const code = (err as { code?: unknown })?.code;
    process.stderr.write(
      `platform-sync action: its runner (dist/platform-sync-action.cjs or dist/src/action/run.js) could not be loaded${typeof code === 'string' && /^[A-Z_]+$/.test(code) ? ` (${code})` : ''}; reinstall the action\n`,
    );
    process.exitCode = 1;
  },
);
