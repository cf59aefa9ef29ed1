/**
 * The step of `npm run build` after tsc: the generated validators (`npm run generate`: ajv's
 * JavaScript, with its declarations beside it; scripts/generated-validators.ts lists them) copied from
 * src/ to dist/src/ as they are. tsc compiles TypeScript only, and there is nothing in them to
 * compile: as TypeScript they were a megabyte for tsc to check and emit with its source maps —
 * a third of the build's time — and for vitest to rewrite on every run.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { declarationsOf, GENERATED_VALIDATORS } from './generated-validators.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

for (const module of GENERATED_VALIDATORS)
  for (const file of [module, declarationsOf(module)]) {
    const to = join(ROOT, 'dist', 'src', file);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(ROOT, 'src', file), to);
  }
