/**
 * A kind's secrets in the manifests (DESIGN.md §3, §8): references only — `{fromEnv: VAR}` or
 * `{fromFile: path}` — taken out of the item they are written in and checked for their shape.
 * Pure (the resolver's, resolve.ts).
 */
import type { Diagnostic } from '../model/errors.js';
import type { KindDescriptor } from '../model/kind-descriptor.js';
import type { SecretRef } from '../model/resources.js';
import { checkSecretRefShape } from '../model/secret-ref.js';
import { formatPointer } from './diagnostics.js';
import { asObject, asString, siteAt, type Obj, type Site } from './resolve-tables.js';

/**
 * A kind's secrets (`oidc.clientSecret`) are references, never values: each is taken out of the
 * item (so it is never a field, never compared, planned as a value or exported) and kept as a
 * SecretRef, a file path made absolute against the manifest's own directory.
 */
export function takeSecrets(
  descriptor: KindDescriptor,
  secretPaths: readonly string[],
  site: Site,
  item: Obj,
  key: string,
  push: (diagnostic: Diagnostic) => void,
): { item: Obj; refs: Record<string, SecretRef> } {
  const refs: Record<string, SecretRef> = {};
  // `key`: a key of the object at `at` to point at, never quoted in the path (it may be the secret).
  const report = (at: Site, message: string, key?: string) =>
    push({
      location: key === undefined ? at.doc.locate(at.pointer) : at.doc.locate(at.pointer.concat(key), 'key'),
      path: formatPointer(at.pointer),
      message,
    });
  const holderOf = (root: Obj, parts: string[]) =>
    parts.slice(0, -1).reduce<Obj | undefined>((o, p) => asObject(o?.[p]), root);
  const present = secretPaths
    .map((path) => path.split('.'))
    .filter((parts) => holderOf(item, parts)?.[parts[parts.length - 1]!] !== undefined);
  // Most items hold no secret: only one that does is copied (its secrets are taken out of the copy).
  if (present.length === 0) return { item, refs };
  const copy: Obj = structuredClone(item);
  for (const parts of present) {
    const path = parts.join('.');
    const holder = holderOf(copy, parts)!;
    const last = parts[parts.length - 1]!;
    const raw = holder[last];
    delete holder[last];
    const ref = asObject(raw);
    const fromEnv = asString(ref?.fromEnv);
    const fromFile = asString(ref?.fromFile);
    // A pull request wrote these (DESIGN.md §3, §8): only PLATFORM_SYNC_SECRET_* variables, only
    // relative paths inside the operator's secrets directory (checked again where they are read).
    const written: SecretRef | undefined =
      fromEnv !== undefined && fromFile === undefined
        ? { fromEnv }
        : fromFile !== undefined && fromEnv === undefined
          ? { fromFile }
          : undefined;
    const problem = written ? checkSecretRefShape(written) : undefined;
    // The schema's errors inside clientSecret (an anyOf) are not shown: a key beside a valid
    // reference (`fromFlie`) would be dropped without a word.
    const other = written ? Object.keys(ref!).find((k) => k !== 'fromEnv' && k !== 'fromFile') : undefined;
    if (other !== undefined) {
      report(
        siteAt(site, ...parts),
        `${path} of ${descriptor.describe(key)} holds a field other than fromEnv or fromFile (not quoted: it may be the secret); expected exactly one of {fromEnv: VARIABLE} or {fromFile: path}`,
        other,
      );
    } else if (written && problem) {
      report(
        siteAt(site, ...parts, 'fromEnv' in written ? 'fromEnv' : 'fromFile'),
        `${problem} (${path} of ${descriptor.describe(key)})`,
      );
    } else if (written) refs[path] = written;
    else if (ref !== undefined) {
      report(
        siteAt(site, ...parts),
        `${path} of ${descriptor.describe(key)} must be exactly one of {fromEnv: VARIABLE} or {fromFile: path}`,
      );
    }
  }
  return { item: copy, refs };
}
