/**
 * Addresses name every resource in plans, `--target`, `ignore` and `protect` (DESIGN.md §3).
 * They are computed here and nowhere else, so that a desired resource from a manifest and a
 * live resource from the API land on the same string exactly when they are the same thing.
 *
 * Group paths are relative to the org root: '' is the org itself, 'engineering/platform' a
 * grandchild. Every function here is pure.
 */
import { asciiLower } from './email.js';
import type { Kind } from './kinds.js';

export const ORG_ADDRESS = 'org';

/**
 * One string of its parts, flat. Addresses and paths are kept by every resource and compared
 * by the planner: a template literal or `+` makes a tree of concatenations, which V8 keeps as
 * several string objects (≈110 bytes for `identity:team/sub/id-7`; joined, ≈60) and copies
 * into a flat string the first time two are compared.
 */
function flat(...parts: string[]): string {
  return parts.join('');
}

/** Joins a group path and a child segment: ('', 'x') → 'x', ('a/b', 'x') → 'a/b/x'. */
export function joinPath(groupPath: string, segment: string): string {
  return groupPath === '' ? segment : flat(groupPath, '/', segment);
}

/** Parent group path of a group path: 'a/b' → 'a', 'a' → ''. The org ('') has none. */
export function parentPath(groupPath: string): string {
  const i = groupPath.lastIndexOf('/');
  return i < 0 ? '' : groupPath.slice(0, i);
}

/** Number of segments in a group path: '' → 0, 'a/b' → 2. */
export function pathDepth(groupPath: string): number {
  return groupPath === '' ? 0 : groupPath.split('/').length;
}

/** Address of a group; the org root is `org`. */
export function groupAddress(groupPath: string): string {
  return groupPath === '' ? ORG_ADDRESS : flat('group:', groupPath);
}

/** Address of a resource owned by a group and keyed by a name: `<kind>:<group path>/<name>`. */
export function namedAddress(kind: string, groupPath: string, name: string): string {
  return groupPath === '' ? flat(kind, ':', name) : flat(kind, ':', groupPath, '/', name);
}

/** Address of a tag: `tag:<repo path>:<tag name>`, the repo path being the repo's group path + name. */
export function tagAddress(repoPath: string, tagName: string): string {
  return flat('tag:', repoPath, ':', tagName);
}

/**
 * How a role binding names its identity, canonically:
 * - `{path}` an identity inside the org, by its path from the root ('engineering/ci-bot');
 * - `{uid}` an identity the org does not contain (a person, or something outside the org).
 */
export type IdentityKey = { path: string } | { uid: string };
/**
 * How a role binding names its role, canonically:
 * - `{builtin}` a built-in role by name;
 * - `{path}` a custom role inside the org, by its path ('release-manager', 'engineering/deployer');
 * - `{uid}` a custom role the org does not contain.
 */
export type RoleKey = { builtin: string } | { path: string } | { uid: string };

/**
 * The reference text of an identity or role as seen from the binding's group: a sibling is its
 * bare name, another path in the org starts with '/', an outside resource is `uid:<uid>`.
 * This is the form a user would write in the manifest, so addresses read naturally.
 */
export function referenceText(bindingGroupPath: string, key: IdentityKey | RoleKey): string {
  if ('builtin' in key) return key.builtin;
  if ('uid' in key) return `uid:${key.uid}`;
  // A sibling: the path is the binding's group path and one more segment.
  const cut = key.path.lastIndexOf('/');
  const sibling =
    cut < 0
      ? bindingGroupPath === '' && key.path !== ''
      : key.path.slice(0, cut) === bindingGroupPath && bindingGroupPath !== '';
  return sibling ? key.path.slice(cut + 1) : `/${key.path}`;
}

/**
 * Address of a role binding: `roleBinding:<group path>/<identity>=<role>`, identity and role
 * written as {@link referenceText}. Unambiguous: a non-sibling reference starts with '/'.
 */
export function roleBindingAddress(groupPath: string, identity: IdentityKey, role: RoleKey): string {
  const identityText = referenceText(groupPath, identity);
  const roleText = referenceText(groupPath, role);
  return groupPath === ''
    ? flat('roleBinding:', identityText, '=', roleText)
    : flat('roleBinding:', groupPath, '/', identityText, '=', roleText);
}

/**
 * Address of an invite: `groupInvite:<group path>/<email or uid>=<role>` — the e-mail in lower
 * case (e-mails compare case-insensitively), or the last segment of its uid when it carries none.
 */
export function groupInviteAddress(groupPath: string, who: string, role: RoleKey): string {
  const roleText = referenceText(groupPath, role);
  return groupPath === ''
    ? flat('groupInvite:', who, '=', roleText)
    : flat('groupInvite:', groupPath, '/', who, '=', roleText);
}

/** Address of a member line: `member:<group path>/<email>=<role>`, the e-mail in lower case. */
export function memberAddress(groupPath: string, email: string, role: RoleKey): string {
  const roleText = referenceText(groupPath, role);
  const who = asciiLower(email);
  return groupPath === '' ? flat('member:', who, '=', roleText) : flat('member:', groupPath, '/', who, '=', roleText);
}

/** The kind named by an address (`org` is a group). */
export function kindOfAddress(address: string): Kind {
  if (address === ORG_ADDRESS) return 'group';
  return address.slice(0, address.indexOf(':')) as Kind;
}

/**
 * An address glob (`identity:engineering/human-*`, `repo:*`): `*` matches any run of characters
 * (including '/'), `?` one character; nothing else is special. Matching takes time linear in the
 * address length for a given glob, whatever its number of `*` (DESIGN.md §3, §8): no
 * backtracking regular expression, so a glob in a pull request cannot burn CPU. The literal runs
 * between stars are found leftmost, in order — for `*` globs a match exists exactly when that
 * greedy placement succeeds.
 */
export class AddressGlob {
  /** The runs between the stars (`?` still in them). */
  private readonly runs: readonly string[];

  constructor(readonly glob: string) {
    this.runs = glob.split('*');
  }

  test(address: string): boolean {
    const runs = this.runs;
    const first = runs[0]!;
    if (runs.length === 1) return address.length === first.length && runMatchesAt(address, 0, first);
    const last = runs[runs.length - 1]!;
    const end = address.length - last.length;
    if (end < first.length || !runMatchesAt(address, 0, first) || !runMatchesAt(address, end, last)) return false;
    let at = first.length;
    for (let i = 1; i < runs.length - 1; i++) {
      const run = runs[i]!;
      if (run === '') continue;
      let found = -1;
      for (let j = at; j + run.length <= end; j++) {
        if (runMatchesAt(address, j, run)) {
          found = j;
          break;
        }
      }
      if (found < 0) return false;
      at = found + run.length;
    }
    return true;
  }
}

/** Whether `run` (literal characters and `?`) matches `text` at `at`. */
function runMatchesAt(text: string, at: number, run: string): boolean {
  for (let k = 0; k < run.length; k++) {
    const c = run.charCodeAt(k);
    if (c !== 63 /* ? */ && c !== text.charCodeAt(at + k)) return false;
  }
  return true;
}

/** Compiles an address glob (see {@link AddressGlob}). */
export function compileAddressGlob(glob: string): AddressGlob {
  return new AddressGlob(glob);
}

/** True when the address matches any of the globs. */
export function matchesAnyGlob(address: string, globs: readonly AddressGlob[]): boolean {
  // Asked of every resource of a plan, most often with no globs: no closure made then.
  return globs.length > 0 && globs.some((g) => g.test(address));
}
