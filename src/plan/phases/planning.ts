/**
 * What the phases share: their inputs, fixed before the first phase runs, what a phase makes, and
 * the ignore rules. No phase edits what another made: each returns its steps, warnings and
 * refusals, and src/plan/index.ts puts them together, in order. Pure.
 */
import type { LiveIndex } from '../live-index.js';
import type { OrderedStep } from '../order.js';
import type { RenameResult } from '../renames.js';
import { isIgnoredResource } from '../settings.js';
import { type AddressGlob, matchesAnyGlob } from '../../model/address.js';
import { descriptorOf, IDENTITY_GRANT_KIND, type Kind, roleRefFields } from '../../model/kinds.js';
import type { DesiredResource, DesiredState, LiveResource, LiveState } from '../../model/resources.js';

/**
 * What the phases read: fixed before the first phase runs. Each phase names the few of these
 * it needs (`Pick<Planning, …>` in its signature), so a phase's inputs are read off its type.
 */
export interface PlanInputs {
  desired: DesiredState;
  /** Live state as read, re-addressed by the renames the manifests ask for (renames.ts). */
  live: LiveState;
  /** New address → address before the rename, for each rename in place. */
  previousAddress: Map<string, string>;
  index: LiveIndex;
  ignore: AddressGlob[];
  rotateSecrets: boolean;
  /** Live addresses a declaration replaces (a member's expired invite): deleted even where their kind is not pruned. */
  replaced: ReadonlySet<string>;
  /** Member address → the steps its line causes, for `--target member:…` (members.ts). */
  stepsByMember: ReadonlyMap<string, readonly string[]>;
  /** The address a live resource has now, before the plan's renames (only when there are renames). */
  liveAddressOf?: RenameResult['liveAddressOf'];
  /** Every address a live resource answers to for ignore and protect (renames.ts); undefined when that is only its address. */
  formerAddressesOf?: (resource: Pick<LiveResource, 'kind' | 'uid' | 'address'>) => string[];
}

/** The planner's inputs, as each phase names the few it reads (`Pick<Planning, …>`). */
export type Planning = PlanInputs;

/** What a phase makes: its steps (each with the group path it sits in, for ordering) and what it says of them. */
export interface Made {
  steps: OrderedStep[];
  warnings: string[];
}

/** Steps by address, for a phase that looks one up (what a delete waits for, a step's parent). */
export type StepsByAddress = ReadonlyMap<string, OrderedStep>;

export function byAddress(steps: readonly OrderedStep[]): StepsByAddress {
  return new Map(steps.map((s) => [s.step.address, s]));
}

/**
 * Whether a live resource that nothing declared is left alone: its address matches an ignore
 * glob, or it is a binding of an ignored identity (hand-granted access is never revoked).
 */
export function isIgnoredLive(
  p: Pick<Planning, 'ignore' | 'formerAddressesOf' | 'index'>,
  resource: LiveResource,
): boolean {
  if (isIgnoredResource(resource, p.ignore)) return true;
  if (p.formerAddressesOf === undefined || p.ignore.length === 0) return false;
  // Across renames (DESIGN.md §4): the live address before the plan's renames counts too, and
  // the address under each old name a `renamedFrom` line still gives it.
  if (p.formerAddressesOf(resource).some((a) => matchesAnyGlob(a, p.ignore))) return true;
  if (resource.kind !== IDENTITY_GRANT_KIND || !('path' in resource.fields.identity)) return false;
  const identity = p.index.at(`identity:${resource.fields.identity.path}`);
  return identity !== undefined && p.formerAddressesOf(identity).some((a) => matchesAnyGlob(a, p.ignore));
}

/**
 * Whether a declared resource is left alone: only its own address counts (validate refuses
 * that anyway). A declared binding of an ignored identity is managed like any other
 * (DESIGN.md §4): ignoring a person leaves alone only the bindings the manifests do not declare.
 */
export function isIgnoredDeclared(p: Pick<Planning, 'ignore'>, resource: DesiredResource): boolean {
  return p.ignore.length > 0 && matchesAnyGlob(resource.address, p.ignore);
}

export function formatSource(source: DesiredResource['source']): string {
  return `${source.file}:${source.line}:${source.column}`;
}

/** Whether a kind's resources name a role (a binding's role, a `roleRef` field). */
export function referencesRoles(kind: Kind): boolean {
  return descriptorOf(kind).references?.includes('role') === true || roleRefFields(kind).length > 0;
}
