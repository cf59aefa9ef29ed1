/**
 * The README is a door, not a notebook (issue 40 item 8): under 400 lines, the reference in
 * docs/, and every link between them — to a page, a heading or a file of the repository — leads
 * somewhere that exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './cli-harness.js';

const pages = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(text: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (!fenced && /^#{1,6} /.test(line))
      out.add(
        line
          .replace(/^#+ /, '')
          .trim()
          .toLowerCase()
          .replace(/[^\w\- ]/g, '')
          .replaceAll(' ', '-'),
      );
  }
  return out;
}

describe('the README and docs/', () => {
  it('keep the README under 400 lines, with the quick start and a link to every page of docs/', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThan(400);
    expect(readme).toContain('## Quick start');
    for (const page of pages.slice(1)) expect(readme, page).toContain(`](${page})`);
  });

  it('link only to pages, headings and files that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(REPO_ROOT, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const file = path === '' ? join(REPO_ROOT, page) : resolve(dirname(join(REPO_ROOT, page)), path);
        if (!existsSync(file)) broken.push(`${page}: ${target} (no such file)`);
        else if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor))
          broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
