/**
 * The invariant suite's own reading of DESIGN.md (§3 addresses, §4 renames, ignore, protect and
 * refusals), written from the contract and sharing no function with the planner: what it says
 * the planner must do is not computed by the code under test (issue 41). It reads the live state
 * as the live reader returns it and the desired state as the loader returns it — the two inputs
 * of the planner — and nothing of src/plan.
 *
 * - Which live resources an `ignore` or `protect` glob covers: a glob matches a resource when it
 *   matches its address as read, its address after the manifests' renames, or its address under
 *   an old name a `renamedFrom` line still gives it; a live binding nothing declares whose
 *   identity is ignored is ignored too.
 * - Whether a declared resource is live: by its address, a binding's `uid:` references read as
 *   the paths of the resources they name in the org.
 * - Why a plan may be refused: the rules DESIGN names, each checked where the oracle can see it.
 */
import type { DesiredState, LiveResource, LiveState } from '../../src/model/resources.js';
import type { Plan, PlanRefusal } from '../../src/model/plan.js';

/** A glob as DESIGN §3 defines it: `*` any run of characters, `?` one; anchored. */
export function globOracle(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split('*')
      .map((run) => run.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\?/g, '.'))
      .join('.*')}$`,
  );
}

const anyMatch = (addresses: Iterable<string>, globs: readonly RegExp[]) =>
  [...addresses].some((a) => globs.some((g) => g.test(a)));
const join = (path: string, name: string) => (path === '' ? name : `${path}/${name}`);
const parent = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

/** What the manifests' `renamedFrom` lines say, as the oracle reads them: old and new paths of groups, old and new addresses of items. */
interface Renames {
  groups: { oldPath: string; newPath: string }[];
  items: { oldAddress: string; newAddress: string }[];
}

function renamesOf(desired: DesiredState): Renames {
  const groups: Renames['groups'] = [];
  const items: Renames['items'] = [];
  for (const d of desired.resources) {
    if (d.renamedFrom === undefined) continue;
    const newName = (d.fields as { name?: string }).name!;
    if (d.kind === 'group') groups.push({ oldPath: join(parent(d.groupPath), d.renamedFrom), newPath: d.groupPath });
    else
      items.push({
        oldAddress: `${d.kind}:${join(d.groupPath, d.renamedFrom)}`,
        newAddress: `${d.kind}:${join(d.groupPath, newName)}`,
      });
  }
  return { groups, items };
}

/** The part of an address that is a group path (and what stands before it), per the address table of DESIGN §3. */
function splitPath(address: string): { head: string; rest: string; isGroupItself: boolean } {
  // A group mapping's address holds its identity provider's address whole.
  const head = address.startsWith('groupMapping:identityProvider:')
    ? 'groupMapping:identityProvider:'
    : address.slice(0, address.indexOf(':') + 1);
  return { head, rest: address.slice(head.length), isGroupItself: head === 'group:' || head === 'accountAssociation:' };
}

/** Replaces a group path `from` by `to` where the address lies at or beneath it; undefined where it does not. */
function movePath(address: string, from: string, to: string): string | undefined {
  const { head, rest, isGroupItself } = splitPath(address);
  if (rest.startsWith(`${from}/`)) return `${head}${to}${rest.slice(from.length)}`;
  if (isGroupItself && rest === from) return `${head}${to}`;
  // A binding's identity or role written from the root (`/path`) lies under the path too.
  return undefined;
}

/** Every address a resource answers to under the renames, both ways (old → new, new → old), to a fixed point. */
function addressesUnder(address: string, renames: Renames): Set<string> {
  const out = new Set([address]);
  let grew = true;
  while (grew && out.size < 256) {
    grew = false;
    for (const a of [...out]) {
      const next: (string | undefined)[] = [];
      for (const g of renames.groups) next.push(movePath(a, g.oldPath, g.newPath), movePath(a, g.newPath, g.oldPath));
      for (const i of renames.items) {
        if (a === i.oldAddress) next.push(i.newAddress);
        if (a === i.newAddress) next.push(i.oldAddress);
      }
      for (const n of next) if (n !== undefined && !out.has(n)) out.add(n), (grew = true);
    }
  }
  return out;
}

/** Every address a resource at `address` answers to under the manifests' renames (both ways), itself included. */
export function aliasesOf(desired: DesiredState): (address: string) => string[] {
  const renames = renamesOf(desired);
  return (address) => [...addressesUnder(address, renames)];
}

/** A live identity's path from the org root, as the API's names give it. */
function pathOf(r: LiveResource): string {
  return join(r.groupPath, String((r.fields as { name?: unknown }).name));
}

/**
 * The live resources (by `kind:uid`) that `globs` cover, per DESIGN §4; with `bindingsOfIgnored`,
 * also the live bindings nothing declares whose identity is covered.
 */
export function coveredLive(
  live: LiveState,
  desired: DesiredState,
  globs: readonly RegExp[],
  bindingsOfIgnored: boolean,
): Map<string, LiveResource> {
  const out = new Map<string, LiveResource>();
  if (globs.length === 0) return out;
  const renames = renamesOf(desired);
  const covered = new Set<string>();
  for (const r of live.resources) {
    if (r.address === 'org') continue;
    if (anyMatch(addressesUnder(r.address, renames), globs)) {
      out.set(`${r.kind}:${r.uid}`, r);
      covered.add(r.uid);
    }
  }
  if (!bindingsOfIgnored) return out;
  const identityByPath = new Map(live.resources.filter((r) => r.kind === 'identity').map((r) => [pathOf(r), r.uid]));
  const declared = new Set(desired.resources.map((d) => d.address));
  for (const r of live.resources) {
    if (r.kind !== 'roleBinding') continue;
    const ref = (r.fields as { identity: { path?: string; uid?: string } }).identity;
    const identity = ref.uid ?? identityByPath.get(ref.path!);
    if (identity === undefined || !covered.has(identity)) continue;
    if ([...addressesUnder(r.address, renames)].some((a) => declared.has(a))) continue;
    out.set(`${r.kind}:${r.uid}`, r);
  }
  return out;
}

/** Every address a live resource may be declared at: as read, and a binding with `uid:` for the identity or role it names. */
function declarableAddresses(r: LiveResource, uidByPath: Map<string, string>): string[] {
  if (r.kind !== 'roleBinding') return [r.address];
  const prefix = `roleBinding:${r.groupPath === '' ? '' : `${r.groupPath}/`}`;
  const [identityText, roleText] = r.address.slice(prefix.length).split('=') as [string, string];
  const fields = r.fields as { identity: { path?: string }; role: { path?: string } };
  const identities = [
    identityText,
    ...(fields.identity.path !== undefined && uidByPath.has(`identity:${fields.identity.path}`)
      ? [`uid:${uidByPath.get(`identity:${fields.identity.path}`)}`]
      : []),
  ];
  const roles = [
    roleText,
    ...(fields.role.path !== undefined && uidByPath.has(`role:${fields.role.path}`)
      ? [`uid:${uidByPath.get(`role:${fields.role.path}`)}`]
      : []),
  ];
  return identities.flatMap((i) => roles.map((role) => `${prefix}${i}=${role}`));
}

/** Declared resources that are not live (by address; bindings by uid or by path alike). */
export function declaredNotLive(desired: DesiredState, live: LiveState): string[] {
  const uidByPath = new Map<string, string>();
  for (const r of live.resources)
    if (r.kind === 'identity' || r.kind === 'role') uidByPath.set(`${r.kind}:${pathOf(r)}`, r.uid);
  const liveAddresses = new Set(live.resources.flatMap((r) => declarableAddresses(r, uidByPath)));
  return desired.resources.filter((d) => !liveAddresses.has(d.address)).map((d) => d.address);
}

/** The refusal rules DESIGN names (§4), with what each must show. */
const DESIGN_RULES: ReadonlySet<PlanRefusal['rule']> = new Set([
  'not-empty',
  'protected',
  'mass-delete',
  'incomplete-read',
  'ambiguous-live',
  'declared-twice',
  'dangling-reference',
  'rename-conflict',
  'org-not-visible',
  'rename-ignored',
  'org-name-mismatch',
  'new-access',
  // Issue 40: a --target that names nothing is an error, as in Terraform (and members' invites need a time).
  'unknown-target',
  'invite-time',
]);

/**
 * Why a refused plan is refused must be a reason DESIGN gives, visible to the oracle: a rule it
 * names, addresses that are the plan's or the org's, and — for `protected` and `mass-delete` —
 * the delete steps that make it. Returns what does not hold (empty when every refusal is justified).
 */
export function unjustifiedRefusals(
  p: Plan,
  live: LiveState,
  covered: { protect: ReadonlyMap<string, LiveResource>; ignore: ReadonlyMap<string, LiveResource> },
  options: { maxDeleteRatio: number; allowMassDelete: boolean },
): string[] {
  const protectedLive = covered.protect;
  const problems: string[] = [];
  const deletes = p.steps.filter((s) => s.action === 'delete');
  for (const refusal of p.refusals) {
    if (!DESIGN_RULES.has(refusal.rule)) {
      problems.push(`refusal rule ${refusal.rule} is not one DESIGN names: ${refusal.message}`);
      continue;
    }
    if (refusal.addresses.length === 0 && refusal.rule !== 'org-not-visible')
      problems.push(`refusal ${refusal.rule} names no address: ${refusal.message}`);
    if (refusal.rule === 'protected') {
      const justified = deletes.some(
        (s) => refusal.addresses.includes(s.address) && protectedLive.has(`${s.kind}:${s.uid}`),
      );
      if (!justified)
        problems.push(
          `refused as protected, but no delete of a resource a protect glob covers is among ${refusal.addresses.join(', ')}`,
        );
    }
    if (refusal.rule === 'mass-delete') {
      if (options.allowMassDelete) problems.push('refused as a mass delete while --allow-mass-delete was given');
      const byKind = new Map<string, number>();
      for (const s of deletes) byKind.set(s.kind, (byKind.get(s.kind) ?? 0) + 1);
      const justified = [...byKind].some(([kind, n]) => {
        // Managed ones count: not those ignore leaves alone (so between these two numbers).
        const all = live.resources.filter((r) => r.kind === kind && r.address !== 'org');
        const managed = all.filter((r) => !covered.ignore.has(`${r.kind}:${r.uid}`)).length;
        return all.length >= 10 && n > options.maxDeleteRatio * managed;
      });
      if (!justified)
        problems.push(
          `refused as a mass delete, but no kind with 10 or more resources loses more than ${options.maxDeleteRatio} of them`,
        );
    }
  }
  return problems;
}
