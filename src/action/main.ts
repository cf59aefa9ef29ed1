/** Entry of the GitHub Action (action.yml runs `node dist/src/action/main.js`). */
import { processIo } from '../cli/context.js';
import { runAction } from './run.js';

runAction(processIo()).then(
  (result) => {
    process.exitCode = result.stepExit;
  },
  (err: unknown) => {
    process.stderr.write(`platform-sync action: ${(err as Error)?.message ?? String(err)}\n`);
    process.exitCode = 1;
  },
);
