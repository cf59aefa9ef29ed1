/**
 * A plan, read as drift (DESIGN.md §5 `drift`). The planner already knows every difference
 * between the manifests and live state; drift says the same thing the other way round, in the
 * words a reviewer of a nightly report uses: what changed outside platform-sync, what exists
 * live that nobody declared, what is declared but gone. Pure: a Plan in, a report out.
 */
import type { AccessRuleResult } from '../model/access-rules.js';
import { describeRefAddress } from '../plan/references.js';
import type { Kind } from '../model/kinds.js';
import type { Plan, PlanRefusal, PlanStep } from '../model/plan.js';
import type { AccessChange, MemberStatus } from '../model/plan.js';
import { kindOfAddress } from '../model/address.js';
import type { SourceLocation } from '../model/resources.js';
import { UnsafePlanError } from '../model/errors.js';

export const DRIFT_FORMAT_VERSION = 1;

/**
 * - `changed`: exists on both sides, a managed field differs (someone edited it live);
 * - `unmanaged`: exists live, not in the manifests (created by hand?);
 * - `missing`: in the manifests, not live (deleted by hand, or never applied).
 */
export type DriftCategory = 'changed' | 'unmanaged' | 'missing';

/** One managed field that differs: the live value and what the manifests say. */
export interface DriftField {
  field: string;
  live: unknown;
  manifest: unknown;
  /**
   * For a field that holds another resource's uid (a binding's `roleUid`): the addresses of
   * the live and the declared resource, which a reviewer can read where a uid says nothing.
   */
  liveRef?: string;
  manifestRef?: string;
}

export interface DescribeDriftOptions {
  /** The address of a live resource by uid (built-in roles too), to name what a uid points at. */
  addressOfUid?: (uid: string) => string | undefined;
}

export interface DriftItem {
  category: DriftCategory;
  kind: Kind;
  address: string;
  /** Live uid (changed, unmanaged). */
  uid?: string;
  /** The whole finding in one sentence, for a reviewer. */
  message: string;
  /** More to say than the category does (why apply would refuse to fix it). */
  detail?: string;
  /** `changed`: the fields that differ. */
  fields?: DriftField[];
  /** Where the manifests declare it (changed, missing). */
  source?: SourceLocation;
  /**
   * Resources beneath this one with the same finding, folded into it so that one group
   * deleted by hand reads as one line (tags of an unmanaged repo land here too).
   */
  beneath?: string[];
}

/**
 * The drift of one org. Invariants: `inSync` ⇔ `items` is empty; `summary` counts `items` by
 * category; items keep the plan's order within a category (parents before children).
 */
export interface DriftReport {
  formatVersion: typeof DRIFT_FORMAT_VERSION;
  org: { name: string; uid?: string };
  inSync: boolean;
  summary: Record<DriftCategory, number>;
  items: DriftItem[];
  /** The plan's warnings: differences platform-sync leaves alone (pruning off, …). */
  notes: string[];
  /**
   * The effective access the hand edits added or removed (DESIGN.md §4): the plan that would
   * restore the manifests takes away what they added and gives back what they removed.
   * Absent when the drift changes no access.
   */
  access?: DriftAccess[];
  /**
   * Set when the plan is refused because of the drift (a protected or blocking resource
   * created by hand): the items that caused it say why in `detail`, and nothing can be applied
   * until they are resolved.
   */
  refused?: true;
  /**
   * How live holds to the manifests' `org.accessRules` (DESIGN.md §4, §7 rev 6: drift judges
   * live); absent without rules. A broken rule is reported here, not as a finding of `items`.
   */
  accessRules?: AccessRuleResult[];
}

/** What the hand edits did to one principal's access (the restoring plan's access change, turned around). */
export interface DriftAccess {
  principal: string;
  identity?: string;
  scope: string;
  /** Held live, not granted by the manifests. */
  added: string[];
  /** Granted by the manifests, not held live: lost by a hand edit (or not applied yet). */
  removed: string[];
  groups: number;
  /** Granted by a member line that is not applied yet (its invite not sent, or expired unaccepted): never held, so not lost. */
  notApplied?: string[];
  /** When `added` (`removed`, `notApplied`) is exactly a built-in role's capabilities: its name ("all of owner"). */
  addedRole?: string;
  removedRole?: string;
  /** Who the principal admits, when that is broad (access/admits.ts). */
  admits?: string[];
}

export const CATEGORY_HEADINGS: Readonly<Record<DriftCategory, string>> = {
  changed: 'Live differs from the manifests — changed by hand, or not applied yet',
  unmanaged: 'Exists live but not in the manifests — created by hand, or its removal not applied yet',
  missing: 'In the manifests but missing live — deleted by hand, or not applied yet',
};

const CATEGORY_OF_ACTION = { update: 'changed', delete: 'unmanaged', create: 'missing' } as const;

/**
 * Turns a plan into the drift it reveals. A plan with no steps is an org in sync. A plan
 * refused because of drift (see {@link DRIFT_REFUSAL_RULES}) is still all of the drift: every
 * step is a finding, and the refused ones say why apply will not fix them. Other refusals
 * mean live state could not be read reliably: {@link assertDriftReadable} stops those first.
 */
export function describeDrift(plan: Plan, options: DescribeDriftOptions = {}): DriftReport {
  const stepByAddress = new Map(plan.steps.map((s) => [s.address, s]));
  const rootOf = (step: PlanStep): string => findFindingRoot(step, stepByAddress);
  const itemByRoot = new Map<string, DriftItem>();
  const memberSteps = memberOfStep(plan.members ?? []);
  for (const step of plan.steps) {
    if (rootOf(step) !== step.address) continue;
    const member = memberSteps.get(step.address);
    // An expired invite and the invite that replaces it are one finding, under the member (issue 50).
    if (member && step.address === member.replaces && member.invite !== undefined && stepByAddress.has(member.invite))
      continue;
    const item = describeStep(step, CATEGORY_OF_ACTION[step.action], options);
    // The category's heading ("created by hand?") does not fit a member's invite: every view shows the detail.
    if (member) {
      item.message = item.detail = describeMemberStep(member, step);
      if (member.replaces !== undefined && step.address === member.invite) {
        item.address = member.address;
        const expired = stepByAddress.get(member.replaces);
        if (expired !== undefined && expired.action === 'delete') item.uid = expired.uid;
      }
    }
    itemByRoot.set(step.address, item);
  }
  for (const step of plan.steps) {
    const root = rootOf(step);
    if (root !== step.address) (itemByRoot.get(root)!.beneath ??= []).push(step.address);
  }
  const order: DriftCategory[] = ['changed', 'unmanaged', 'missing'];
  // Stable sort: within a category the plan's order stays.
  const items = [...itemByRoot.values()].sort((a, b) => order.indexOf(a.category) - order.indexOf(b.category));
  // A rule the planned state breaks is the plan's refusal, not drift: drift judges live (detect-drift.ts).
  const refused = markRefusals(
    plan.refusals.filter((r) => r.rule !== 'access-rule'),
    items,
    itemByRoot,
  );
  items.sort((a, b) => order.indexOf(a.category) - order.indexOf(b.category));
  const summary = { changed: 0, unmanaged: 0, missing: 0 };
  for (const item of items) summary[item.category]++;
  const report: DriftReport = {
    formatVersion: DRIFT_FORMAT_VERSION,
    org: { ...plan.org },
    inSync: items.length === 0,
    summary,
    items,
    notes: [...plan.warnings],
  };
  if (refused) report.refused = true;
  const access = (plan.accessChanges ?? []).map((c) => driftAccessOf(c, memberSteps));
  if (access.length > 0) report.access = access;
  return report;
}

/**
 * What the hand edits did to access is the restoring plan's access changes, turned around — but
 * what only member lines' invites give (a line never applied, an invite that expired unaccepted)
 * was never held: not applied yet, not lost.
 */
function driftAccessOf(c: AccessChange, memberSteps: ReadonlyMap<string, MemberStatus>): DriftAccess {
  const fromMembers =
    c.lost.length === 0 && c.causes.length > 0 && c.causes.every((address) => memberSteps.has(address));
  const out: DriftAccess = {
    principal: c.principal,
    ...(c.identity !== undefined ? { identity: c.identity } : {}),
    scope: c.scope,
    added: c.lost,
    removed: fromMembers ? [] : c.gained,
    groups: c.groups,
  };
  if (fromMembers) out.notApplied = c.gained;
  if (c.lostRole !== undefined) out.addedRole = c.lostRole;
  if (c.gainedRole !== undefined) out.removedRole = c.gainedRole;
  if (c.admits !== undefined) out.admits = c.admits;
  return out;
}

/** The member line each invite step comes from: the invite it creates, the expired one it replaces. */
function memberOfStep(members: readonly MemberStatus[]): Map<string, MemberStatus> {
  const out = new Map<string, MemberStatus>();
  for (const m of members) {
    if (m.state !== 'invited') continue;
    if (m.invite !== undefined) out.set(m.invite, m);
    if (m.replaces !== undefined) out.set(m.replaces, m);
  }
  return out;
}

/**
 * An invite step in a nightly report's words: a member who never accepted is no "hand edit".
 * The expired invite is deleted and the person invited again by the same apply.
 */
function describeMemberStep(m: MemberStatus, step: PlanStep): string {
  const who = `${m.email} (${m.role} on ${m.group})`;
  if (step.address === m.replaces)
    return `the invite for ${who} expired before it was accepted: apply deletes it and invites them again`;
  return m.replaces !== undefined
    ? `${who} did not accept their invite before it expired: apply deletes it and invites them again`
    : `${who} holds no binding of that role and has no open invite: apply invites them`;
}

/**
 * Puts each refusal on the finding of the address it names (or the finding it is folded
 * into); a refusal whose address has no step of its own (a kept child that blocks its group's
 * delete) becomes a finding of its own. True when there was any.
 */
function markRefusals(
  refusals: readonly PlanRefusal[],
  items: DriftItem[],
  itemByRoot: ReadonlyMap<string, DriftItem>,
): boolean {
  for (const r of refusals) {
    const address = r.addresses[0] ?? 'org';
    const item = itemByRoot.get(address) ?? items.find((i) => i.beneath?.includes(address));
    if (item) {
      if (item.category === 'unmanaged' && item.address === address) item.message = REFUSED_UNMANAGED;
      item.detail = item.detail === undefined ? r.message : `${item.detail}; ${r.message}`;
      continue;
    }
    // An org that is not visible is in the manifests and missing live, not something live the manifests leave out.
    if (r.rule === 'org-not-visible')
      items.push({
        category: 'missing',
        kind: 'group',
        address,
        message:
          'in the manifests but not visible live: no root group of that name (a wrong URL or token looks the same)',
        detail: r.message,
      });
    else
      items.push({
        category: 'unmanaged',
        kind: kindOfAddress(address),
        address,
        message: REFUSED_UNMANAGED,
        detail: r.message,
      });
  }
  return refusals.length > 0;
}

const REFUSED_UNMANAGED = 'exists live but not in the manifests, and apply refuses to delete it';

/**
 * Drift reports a plan refused because of drift, but not one refused because live state
 * could not be read reliably (an inconsistent listing, ambiguous siblings): then the findings
 * themselves are in doubt, so it is an error.
 */
export function assertDriftReadable(plan: Plan): void {
  const unreadable = plan.refusals.filter((r) => !DRIFT_REFUSAL_RULES.has(r.rule) && r.rule !== 'access-rule');
  if (unreadable.length > 0) throw new UnsafePlanError(unreadable);
}

/**
 * Rules under which the planner refuses a plan *because of* drift: a live resource the
 * manifests do not describe is protected, or blocks the delete of its group. Drift still
 * reports those (exit 2); other refusals (an inconsistent read, ambiguous live state) mean
 * live state could not be read reliably and stay errors.
 */
export const DRIFT_REFUSAL_RULES: ReadonlySet<PlanRefusal['rule']> = new Set(['protected', 'not-empty']);

/**
 * The address a step's finding is reported under: the topmost ancestor whose step has the same
 * action (a repo created by hand carries its tags; a group deleted by hand carries everything
 * beneath it), else the step itself. Updates are never folded: each edit is its own finding.
 */
function findFindingRoot(step: PlanStep, stepByAddress: ReadonlyMap<string, PlanStep>): string {
  if (step.action === 'update') return step.address;
  let root = step.address;
  for (let parent = step.parent; parent; ) {
    const parentStep = stepByAddress.get(parent);
    if (!parentStep || parentStep.action !== step.action) break;
    root = parent;
    parent = parentStep.parent;
  }
  return root;
}

function describeStep(step: PlanStep, category: DriftCategory, options: DescribeDriftOptions): DriftItem {
  const item: DriftItem = { category, kind: step.kind, address: step.address, message: '' };
  if (step.action !== 'create') item.uid = step.uid;
  if (step.source !== undefined) item.source = step.source;
  switch (category) {
    case 'changed': {
      if (step.action !== 'update') break;
      const { before, after } = step;
      const fields = step.updateMask.flatMap((field): DriftField[] => {
        // An object (an identity's claimMatch): which part drifted, field by field.
        const b = before[field];
        const a = after[field];
        if (isPlainObject(b) && isPlainObject(a)) {
          const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].sort();
          return keys
            .filter((k) => JSON.stringify(b[k]) !== JSON.stringify(a[k]))
            .map((k) => ({ field: `${field}.${k}`, live: b[k], manifest: a[k] }));
        }
        const f: DriftField = { field, live: b, manifest: a };
        const ref = step.refs?.[field as 'roleUid' | 'identityUid' | 'defaultRole'];
        if (ref) {
          f.manifestRef = describeRefAddress(ref.address);
          const liveRef = typeof f.live === 'string' ? options.addressOfUid?.(f.live) : undefined;
          if (liveRef !== undefined) f.liveRef = describeRefAddress(liveRef);
        }
        return [f];
      });
      item.fields = fields;
      item.message =
        `live differs from the manifests (changed by hand, or not applied yet): ` +
        fields.map((f) => `${f.field} is ${describeLive(f)} live, the manifests say ${describeManifest(f)}`).join('; ');
      break;
    }
    case 'unmanaged':
      item.message =
        step.address === 'org'
          ? 'the org exists live but the manifests do not describe it'
          : 'exists live but not in the manifests — created by hand, or its removal not applied yet';
      break;
    case 'missing':
      item.message =
        step.address === 'org'
          ? 'the org does not exist live — never applied?'
          : 'in the manifests but missing live — deleted by hand, or not applied yet';
      break;
  }
  return item;
}

/** The live side of a changed field in one line: the resource a uid points at, when known. */
export function describeLive(f: DriftField): string {
  return f.liveRef ?? describeValue(f.live);
}

/** The manifests' side of a changed field in one line. */
export function describeManifest(f: DriftField): string {
  return f.manifestRef ?? describeValue(f.manifest);
}

/**
 * A value as a reviewer reads it in one line: strings quoted, a multi-line text by its first
 * line and line count, long text cut, objects as compact JSON.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return '(not set)';
  if (typeof value === 'string') {
    if (value === '') return 'empty';
    const lines = value.split('\n');
    if (lines.at(-1) === '') lines.pop();
    const first = truncate(lines[0] ?? '', 60);
    return lines.length > 1 ? `${JSON.stringify(first)}… (${lines.length} lines)` : JSON.stringify(truncate(value, 60));
  }
  if (Array.isArray(value)) return `[${value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(', ')}}`;
  }
  return String(value);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
