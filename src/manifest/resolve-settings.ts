/**
 * The `settings` of the manifests (DESIGN.md §3), read document by document: `prune` (which must
 * agree wherever it is set), `ignore` and `protect` globs (joined), `inviteTtl`. Pure.
 */
import type { PruneSetting, SourceLocation } from '../model/resources.js';
import { formatLocation } from './diagnostics.js';
import type { ManifestDocument } from './parse-documents.js';
import { parseInviteTtl } from './resolve-members.js';
import { asArray, asString, type Obj, type Site } from './resolve-tables.js';
import { checkAddressGlob, pruneKey, toPruneSetting } from './settings.js';

export class SettingsReader {
  prune: { value: PruneSetting; written: unknown; location: SourceLocation } | undefined;
  inviteTtl?: { value: string; ms: number; location: SourceLocation };
  /** Each glob with where it was first written. */
  readonly globs = { ignore: new Map<string, SourceLocation>(), protect: new Map<string, SourceLocation>() };

  constructor(private readonly report: (site: Site, message: string) => void) {}

  add(doc: ManifestDocument, settings: Obj | undefined): void {
    if (!settings) return;
    const prune = toPruneSetting(settings.prune);
    if (prune !== undefined) {
      const site = { doc, pointer: ['settings', 'prune'] };
      const location = doc.locate(site.pointer);
      // Messages quote the value as written (`{widgets: true}`), not the converted setting.
      if (!this.prune) this.prune = { value: prune, written: settings.prune, location };
      else if (pruneKey(this.prune.value) !== pruneKey(prune)) {
        this.report(
          site,
          `conflicting settings.prune: ${JSON.stringify(settings.prune)} here, but ${JSON.stringify(this.prune.written)} at ${formatLocation(this.prune.location)}; set it in one place only, or to the same value`,
        );
      }
    }
    const ttl = asString(settings.inviteTtl);
    if (ttl !== undefined) {
      const site = { doc, pointer: ['settings', 'inviteTtl'] };
      const ms = parseInviteTtl(ttl);
      if (typeof ms === 'string') this.report(site, ms);
      else if (!this.inviteTtl) this.inviteTtl = { value: ttl, ms, location: doc.locate(site.pointer) };
      else if (this.inviteTtl.ms !== ms)
        this.report(
          site,
          `conflicting settings.inviteTtl: ${ttl} here, but ${this.inviteTtl.value} at ${formatLocation(this.inviteTtl.location)}; set it in one place only, or to the same value`,
        );
    }
    for (const list of ['ignore', 'protect'] as const) {
      asArray(settings[list]).forEach((raw, i) => {
        const glob = asString(raw);
        if (glob === undefined || glob === '') return; // the schema reports the type
        const site = { doc, pointer: ['settings', list, i] };
        const problem = checkAddressGlob(glob, list);
        if (problem) this.report(site, problem);
        else if (!this.globs[list].has(glob)) this.globs[list].set(glob, doc.locate(site.pointer));
      });
    }
  }
}
