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
  processIo(): CliIo;
  /** Writes the bundle's code cache after the run (src/cli/launch.ts); nothing without a bundle. */
  saveCodeCache(): void;
}

async function loadAction(): Promise<ActionEntry> {
  const at = (path: string): string => fileURLToPath(new URL(path, import.meta.url));
  const bundle = loadBundle(at('../../platform-sync.cjs'), at('../cli/main.js'), openCodeCache());
  if (bundle !== undefined) {
    const { runAction } = bundle.part(ACTION_BUNDLE_FILE) as Pick<ActionEntry, 'runAction'>;
    return { runAction, processIo: bundle.cli.processIo, saveCodeCache: bundle.saveCodeCache };
  }
  const [{ runAction }, { processIo }] = await Promise.all([import('./run.js'), import('../cli/context.js')]);
  return { runAction, processIo, saveCodeCache: () => {} };
}

loadAction()
  .then(async ({ runAction, processIo, saveCodeCache }) => {
    const result = await runAction(processIo());
    saveCodeCache();
    return result;
  })
  .then(
    (result) => {
      process.exitCode = result.stepExit;
    },
    (err: unknown) => {
      process.stderr.write(`platform-sync action: ${(err as Error)?.message ?? String(err)}\n`);
      process.exitCode = 1;
    },
  );
