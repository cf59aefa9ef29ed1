/** The user's documentation: the README (the door) and the pages of docs/ it links to. */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** One page: `README.md`, or a page of docs/ by its file name (`emulator.md`). */
export function readDoc(name: string): string {
  return readFileSync(name === 'README.md' ? join(ROOT, name) : join(ROOT, 'docs', name), 'utf8');
}

/** The README and every page of docs/, one text. */
export function allDocs(): string {
  return [
    readDoc('README.md'),
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map(readDoc),
  ].join('\n');
}
