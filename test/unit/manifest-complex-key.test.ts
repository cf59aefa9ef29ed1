/** A complex YAML key (`? [a, b]`) is a diagnostic at its place, never a Node warning on stderr. */
import { describe, expect, it } from 'vitest';
import { validateManifestTexts } from '../../src/manifest/index.js';

describe('a complex mapping key', () => {
  it('is a diagnostic naming its place, and nothing is written to stderr', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      for (const key of ['? [a, b]\n  : x', '? {a: 1}\n  : x']) {
        const result = validateManifestTexts([
          { file: 'm.yaml', text: `apiVersion: platform-sync/v1\norg:\n  name: acme\n  ${key}\n` },
        ]);
        expect(result.diagnostics.map((d) => `${d.location.line}:${d.location.column} ${d.message}`)).toEqual([
          '4:5 a mapping key must be a plain name, not a list or mapping (a complex key `? …`); write the field name as a plain key',
        ]);
      }
      // process.emitWarning reports on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });
});
