/**
 * Fingerprints let `apply plan.json` refuse a plan that live state has moved away from
 * (DESIGN.md §4). Pure: hashing is computation, not I/O.
 */
import { crypto } from '../util/lazy-require.js';
import type { Fingerprint, Plan, PlanStep } from '../model/plan.js';
import { IDENTITY_GRANT_KIND, type SubResourceField, subResourceFields } from '../model/kinds.js';
import { kindOfAddress } from '../model/address.js';
import { fieldsOf, type LiveResource, type LiveState } from '../model/resources.js';
import { displayFields } from '../plan/fields.js';
import { canonicalJson } from '../model/kind-descriptor.js';
import { identityRefAddress, roleRefAddress } from '../plan/references.js';
import { pushTo } from '../util/multimap.js';
import { writtenPaths } from '../model/step-effect.js';

/**
 * The version of a live resource: its `updateTime` when the API gives one, else a hash of
 * its fields. Sub-resources are left out on purpose: they are read only where the manifests
 * manage them, so a re-read for a saved plan (which has no manifests) could not see them.
 */
function versionOf(resource: LiveResource): string {
  if (resource.updateTime) return resource.updateTime;
  const fields = displayFields(resource);
  for (const spec of subResourceFields(resource.kind)) delete fields[spec.name];
  const hash = crypto()
    .createHash('sha256')
    .update(canonicalJson({ kind: resource.kind, parentUid: resource.parentUid, fields }))
    .digest('hex');
  return `sha256:${hash}`;
}

/** One fingerprint for every live resource, sorted by address then uid. */
export function fingerprintLive(live: LiveState): Fingerprint[] {
  return live.resources
    .map((r) => ({ address: r.address, uid: r.uid, version: versionOf(r) }))
    .sort((a, b) =>
      a.address < b.address ? -1 : a.address > b.address ? 1 : a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0,
    );
}

/** A way in which live state no longer matches what a saved plan read. */
export interface StaleEntry {
  address: string;
  reason: string;
}

/**
 * Compares a saved plan's fingerprints with a fresh read. Reports: a different org, a
 * resource gone, a resource changed (new `updateTime` or content), a resource that now sits
 * at an address the plan creates, a new child under a resource the plan deletes or a new
 * binding to an identity or role it deletes (either delete would fail), and a live read too
 * incomplete to check against. Empty when the plan is still good to apply.
 */
/** The sub-resource fields a step sets: by its update mask, or a create's `after`. */
function subResourcesSetBy(step: PlanStep): SubResourceField[] {
  if (step.action === 'delete') return [];
  const written = writtenPaths(step);
  return subResourceFields(step.kind).filter((spec) => written.includes(spec.name));
}

/** Resources whose sub-resources a saved plan sets: re-read them so {@link checkFingerprints} can compare. */
export function subResourcesOf(saved: Plan): Set<string> {
  // A create's too: whether a re-run finds the plan already applied compares them.
  return new Set(saved.steps.filter((s) => subResourcesSetBy(s).length > 0).map((s) => s.address));
}

export function checkFingerprints(saved: Plan, live: LiveState): StaleEntry[] {
  const stale: StaleEntry[] = [];
  if ((saved.org.uid ?? null) !== (live.org?.uid ?? null)) {
    stale.push({
      address: 'org',
      reason: saved.org.uid
        ? live.org
          ? `the org is now ${live.org.uid}, the plan was made for ${saved.org.uid}`
          : `the org ${saved.org.uid} no longer exists`
        : `the org was created (${live.org?.uid}) after the plan, which creates it`,
    });
  }
  // By kind and uid: an account association has its group's uid.
  const liveByUid = new Map<string, LiveResource>();
  const liveByAddress = new Map<string, LiveResource[]>();
  for (const r of live.resources) {
    liveByUid.set(uidKey(r.kind, r.uid), r);
    pushTo(liveByAddress, r.address, r);
  }
  const known = new Set<string>();
  for (const fp of saved.fingerprints) {
    known.add(fp.uid);
    const now = liveByUid.get(uidKey(kindOfAddress(fp.address), fp.uid));
    if (!now) {
      stale.push({ address: fp.address, reason: `gone (uid ${fp.uid})` });
      continue;
    }
    const version = versionOf(now);
    if (version !== fp.version) stale.push({ address: fp.address, reason: `changed (${fp.version} → ${version})` });
    else if (now.address !== fp.address) stale.push({ address: fp.address, reason: `now at ${now.address}` });
  }
  const deleted = new Set<string>();
  for (const step of saved.steps) {
    if (step.action === 'delete') deleted.add(step.address);
  }
  for (const step of saved.steps) {
    if (step.action !== 'create') continue;
    for (const r of liveByAddress.get(step.address) ?? []) {
      if (!known.has(r.uid)) stale.push({ address: step.address, reason: `created since the plan (uid ${r.uid})` });
    }
  }
  for (const r of live.resources) {
    if (known.has(r.uid)) continue;
    if (r.parentAddress !== null && deleted.has(r.parentAddress)) {
      stale.push({ address: r.address, reason: `new inside ${r.parentAddress}, which the plan deletes` });
    }
    if (r.kind !== IDENTITY_GRANT_KIND) continue;
    // A new binding to an identity or role the plan deletes would make that delete fail.
    for (const target of [identityRefAddress(r.fields.identity), roleRefAddress(r.fields.role)]) {
      if (deleted.has(target))
        stale.push({ address: r.address, reason: `new, and references ${target}, which the plan deletes` });
    }
  }
  // A sub-resource has no version of its own on every API: compare the text the plan changes from.
  for (const step of saved.steps) {
    if (step.action !== 'update' || step.uid === undefined) continue;
    const now = liveByUid.get(uidKey(step.kind, step.uid));
    if (now?.kind !== step.kind) continue;
    const fields = fieldsOf(now);
    for (const spec of subResourcesSetBy(step)) {
      if (fields[spec.name] !== undefined && fields[spec.name] !== step.before?.[spec.name])
        stale.push({ address: step.address, reason: `${spec.name} changed since the plan` });
    }
  }
  // What a read could not see cannot be checked: a missing resource would read as "gone".
  for (const read of live.incomplete) {
    stale.push({
      address: read.kind,
      reason: `the live read was incomplete, so the plan cannot be checked (${read.reason})`,
    });
  }
  return stale.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

/** A uid qualified by its kind: unique even where one uid names two resources (a group and its account association). */
export function uidKey(kind: string, uid: string): string {
  return `${kind}\u0000${uid}`;
}
