/**
 * The package as users install it: its CLI entry is exported (`platform-sync/cli`), the tarball
 * holds the LICENSE the package names, and its source maps carry their sources (src/ is not
 * shipped, so a map that only pointed at it would point at nothing).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../e2e/cli-harness.js';

describe('the package', () => {
  it('exports the CLI entry as platform-sync/cli', async () => {
    const cli = (await import('platform-sync/cli')) as { main?: unknown };
    expect(typeof cli.main).toBe('function');
  });

  it('packs its LICENSE, and source maps that hold their sources', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files).toContain('LICENSE');
    expect(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).license).toBe('MIT');
    const maps = files.filter((f) => f.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(50);
    expect(files.some((f) => f.startsWith('src/'))).toBe(false);
    for (const map of maps.slice(0, 200)) {
      const parsed = JSON.parse(readFileSync(join(REPO_ROOT, map), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      expect(parsed.sourcesContent?.length, map).toBe(parsed.sources.length);
    }
  });
});
