/**
 * An export never holds a secret the run holds, nor a `[REDACTED]` in its place (DESIGN.md §4,
 * §8): a live value that equals or contains the token or a PLATFORM_SYNC_SECRET_* value cannot be
 * written as it is (that would leak it), nor redacted (the export would no longer describe live, and
 * `plan` on it would change the value). Such an export is refused, naming where the value is.
 */
import { escapeValue } from '../io/escape.js';
import type { Redactor } from '../io/write-file.js';
import type { LiveState } from '../model/resources.js';
import { UserError } from '../model/errors.js';
import type { ExportedFile } from './export-manifests.js';

/** Throws naming each live value the redaction would cut from the export; the values themselves are never quoted. */
export function refuseHeldSecrets(live: LiveState, files: readonly ExportedFile[], redact: Redactor): void {
  // The redaction on the way out decides: what it leaves as it is may be written.
  const touched = files.filter((f) => redact(f.text) !== f.text).map((f) => f.file);
  if (touched.length === 0) return;
  const places = [
    ...(live.org !== null && redact(live.org.name) !== live.org.name ? ['the org name'] : []),
    ...live.resources.flatMap((r) =>
      [...stringsIn({ ...r.fields, ...(r.email === undefined ? {} : { email: r.email }) })]
        .filter(([, value]) => redact(value) !== value)
        .map(([path]) => `${escapeValue(r.address)} ${path}`),
    ),
  ];
  // Nothing named (a secret only in text export adds, a schema path say): the files then.
  const named = places.length > 0 ? places : touched.map((file) => `the text of ${escapeValue(file)}`);
  throw new UserError(
    'EXPORT_HOLDS_SECRET',
    `cannot export: live values hold a secret this run holds (the API token or a PLATFORM_SYNC_SECRET_* value); writing them would leak it, and redacting them would make files that do not describe the org; nothing was written:\n` +
      named
        .slice(0, 20)
        .map((p) => `  - ${p}`)
        .join('\n') +
      (named.length > 20 ? `\n  … and ${named.length - 20} more` : '') +
      '\nChange those values on the service (or unset the variable that holds the same text), then export again.',
  );
}

/** Every string under `value` with its dotted path (`description`, `mappings.0.claim`). */
function* stringsIn(value: unknown, path = ''): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (value !== null && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) yield* stringsIn(inner, path === '' ? key : `${path}.${key}`);
}
