/**
 * Phase 0, prepare. Before the read: what planning needs read from the org (liveReadFor), and
 * options the planner would refuse, refused before any request. After it: the planner's inputs
 * fixed before the first phase runs. The renames the manifests ask for re-address live state;
 * each `members` line becomes the binding, invite or new invite that brings it about; live state
 * is indexed. An org that is not visible ends the plan here. Pure (src/plan/index.ts runs the
 * phases in order).
 */
import { asciiLower } from '../../model/email.js';
import { planMembers } from './members.js';
import type { MemberStatus } from '../../model/plan.js';
import type { Planning } from './planning.js';
import { checkTargets } from './targets.js';
import type { ReadLiveStateOptions } from '../../live/read-live-state.js';
import { indexLive } from '../live-index.js';
import type { PlanOptions } from '../options.js';
import { applyRenames, formerAddressesOf, managedSubResources } from '../renames.js';
import { ORG_ADDRESS, compileAddressGlob } from '../../model/address.js';
import { PLAN_FORMAT_VERSION, type Plan, type PlanRefusal } from '../../model/plan.js';
import type { DesiredState, LiveState } from '../../model/resources.js';

/**
 * What planning a set of manifests needs read from the org: the org as declared (its pinned uid
 * too), the sub-resources the manifests manage (across renames: renames.ts), and how many of
 * each kind to expect.
 */
export function liveReadFor(
  desired: DesiredState,
  options: Pick<PlanOptions, 'targets' | 'bootstrap'> & { subResources?: boolean } = {},
): ReadLiveStateOptions {
  if (options.targets) checkTargets(options.targets);
  const org: ReadLiveStateOptions['org'] = { name: desired.org.name };
  if (desired.org.uid !== undefined) org.uid = desired.org.uid;
  return {
    org,
    ...(options.subResources === false ? {} : { subResources: managedSubResources(desired) }),
    expected: desired.resources,
    orgMustExist: options.bootstrap !== true,
  };
}

export interface Prepared {
  p: Planning;
  /** What each `members` line is (present, pending, invited), for the plan's Members section. */
  members: MemberStatus[];
  /** What cannot be planned as asked (a rename onto a taken name, a --reinvite of nobody). */
  refusals: PlanRefusal[];
}

export function preparePlanning(desiredAsLoaded: DesiredState, liveAsRead: LiveState, options: PlanOptions): Prepared {
  const renamed = applyRenames(desiredAsLoaded, liveAsRead);
  const now = options.now ?? Number.NaN;
  const reinvite = new Set((options.reinvite ?? []).map(asciiLower));
  const membered = planMembers(desiredAsLoaded, renamed.live, now, reinvite);
  // A --reinvite that replaces nothing is a typo, refused as an unknown --target is.
  const replaced = new Set(membered.members.filter((m) => m.replaces !== undefined).map((m) => asciiLower(m.email)));
  const unknown = [...reinvite].filter((e) => !replaced.has(e));
  if (unknown.length > 0) {
    renamed.refusals.push({
      rule: 'unknown-target',
      message: `--reinvite ${unknown.join(', ')}: no members line of ${unknown.length === 1 ? 'that e-mail' : 'those e-mails'} has an invite to replace (a present member needs none; a missing one is invited anyway)`,
      addresses: [],
    });
  }
  const { desired, live } = membered;
  // Only a plan with renames and with ignore or protect globs needs the addresses as read.
  const globbed = desired.settings.ignore.length > 0 || desired.settings.protect.length > 0;
  const liveAddressOf = renamed.live === liveAsRead || !globbed ? undefined : renamed.liveAddressOf;
  const invited = membered.members.filter((m) => m.state === 'invited');
  if (invited.length > 0 && !Number.isFinite(now)) {
    renamed.refusals.push({
      rule: 'invite-time',
      message: 'members need invites, but the plan was given no time to set their expiration from (plan() option now)',
      addresses: invited.map((m) => m.address),
    });
  }
  const p: Planning = {
    desired,
    live,
    previousAddress: renamed.previousAddress,
    index: indexLive(live),
    ignore: desired.settings.ignore.map(compileAddressGlob),
    rotateSecrets: options.rotateSecrets === true,
    replaced: new Set(membered.replaced),
    stepsByMember: membered.stepsByMember,
  };
  if (liveAddressOf) p.liveAddressOf = liveAddressOf;
  const formerOf = globbed ? formerAddressesOf(desired, liveAddressOf) : undefined;
  if (formerOf) p.formerAddressesOf = formerOf;
  return { p, members: membered.members, refusals: renamed.refusals };
}

/**
 * The plan when it ends before it starts — the org is not visible and the caller did not ask to
 * create it (`bootstrap`): no step, one refusal. Undefined when planning goes on.
 */
export function invisibleOrgPlan(
  desired: DesiredState,
  live: LiveState,
  options: Pick<PlanOptions, 'bootstrap'>,
): Plan | undefined {
  if (live.org !== null || options.bootstrap === true) return undefined;
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    org: { name: desired.org.name },
    summary: { create: 0, update: 0, delete: 0 },
    steps: [],
    warnings: [],
    refusals: [
      {
        rule: 'org-not-visible',
        message:
          `org ${desired.org.name} is not visible (no root group of that name): a wrong URL, a token of another tenant or a token scoped below the org ` +
          'look exactly like an org that does not exist; to create it, plan with bootstrap (--bootstrap)',
        addresses: [ORG_ADDRESS],
      },
    ],
    fingerprints: [],
  };
}
