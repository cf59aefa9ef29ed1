/**
 * `adopt` as text and JSON (DESIGN.md §4 "Drift both ways"): what each drifted resource came to
 * (a field rewritten, an item added or removed, or left and why), then the unified diff of the
 * manifests. Text from live data and manifests is escaped (escapeControl); the diff's own lines
 * are the files' bytes, escaped the same way.
 */
import { createTwoFilesPatch } from 'diff';
import { relative } from 'node:path';
import type { AdoptItem, AdoptResult } from '../adopt/index.js';
import { ADOPT_FORMAT_VERSION } from '../adopt/index.js';
import { escapeControl, stringifyForOutput } from './escape.js';

const ACTION_MARK: Record<AdoptItem['action'], string> = { changed: '~', added: '+', removed: '-', left: '!' };

/** The unified diff of one file, its paths relative to `cwd` (`a/…`, `b/…` as git writes them). */
export function fileDiff(file: { file: string; before: string; after: string }, cwd: string): string {
  const name = relative(cwd, file.file) || file.file;
  return createTwoFilesPatch(`a/${name}`, `b/${name}`, file.before, file.after, '', '', { context: 3 })
    .replace(/^=+\n/m, '')
    .replace(/^(---|\+\+\+) (\S+)\t\n/gm, '$1 $2\n');
}

export function renderTextAdopt(result: AdoptResult, options: { cwd: string; written: boolean }): string {
  const adopted = result.items.filter((i) => i.action !== 'left');
  const org = escapeControl(result.org.name);
  if (result.files.length === 0 && result.items.length === 0)
    return `No drift: org ${org} matches the manifests; nothing to adopt.\n`;
  const lines: string[] = [];
  lines.push(
    `Adopting ${adopted.length} change${adopted.length === 1 ? '' : 's'} live holds into the manifests of org ${escapeControl(result.org.name)} ` +
      '(live differs from the manifests: changed by hand, or not applied yet):',
  );
  for (const i of result.items) {
    const where = i.file ? ` (${escapeControl(relative(options.cwd, i.file) || i.file)})` : '';
    const what =
      i.action === 'changed'
        ? ` ${i.fields?.join(', ') ?? ''}`
        : i.action === 'left'
          ? ` left: ${escapeControl(i.reason ?? '')}`
          : ` ${i.action}`;
    lines.push(`  ${ACTION_MARK[i.action]} ${escapeControl(i.address)}${what}${where}`);
  }
  lines.push('');
  for (const f of result.files) lines.push(escapeControl(fileDiff(f, options.cwd)).replace(/\n$/, ''));
  if (result.files.length > 0) lines.push('');
  if (options.written)
    for (const f of result.files) lines.push(`Wrote ${escapeControl(relative(options.cwd, f.file) || f.file)}`);
  else if (result.files.length > 0) {
    lines.push(
      'Nothing was written: run again with --write to write these changes, or `platform-sync apply` to revert live instead.',
    );
  }
  return `${lines.join('\n')}\n`;
}

export function renderJsonAdopt(result: AdoptResult, options: { cwd: string; written: boolean }): string {
  const count = (a: AdoptItem['action']): number => result.items.filter((i) => i.action === a).length;
  return `${stringifyForOutput(
    {
      formatVersion: ADOPT_FORMAT_VERSION,
      org: result.org,
      inSync: result.files.length === 0 && result.items.length === 0,
      written: options.written && result.files.length > 0,
      summary: { changed: count('changed'), added: count('added'), removed: count('removed'), left: count('left') },
      items: result.items.map((i) => ({ ...i, ...(i.file ? { file: relative(options.cwd, i.file) || i.file } : {}) })),
      files: result.files.map((f) => ({
        file: relative(options.cwd, f.file) || f.file,
        diff: fileDiff(f, options.cwd),
      })),
    },
    2,
  )}\n`;
}
