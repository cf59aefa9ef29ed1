/**
 * How one generated case is run and checked (the invariant suite and its kept counterexamples).
 * The rules that must hold for every combination of kinds, settings, renames and hand edits,
 * checked end to end over generated orgs against the emulator over loopback HTTP (issue "Right
 * where features meet"):
 *
 * - I1 convergence: unless refused, apply then plan is empty; after an interrupted or faulted
 *   apply, running again converges.
 * - I2 nothing declared is silently dropped: after apply, every declared resource exists with its
 *   declared fields (the re-plan is empty), or the plan named it with a reason.
 * - I3 ignore and protect hold: nothing an ignore glob matches (by its live address before the
 *   plan, or its address after it) is changed or deleted; nothing protected is deleted —
 *   renames of its parents included.
 * - I4 nothing outside the org, or outside --target, is touched.
 * - I5 saved plans are honest: after a hand edit a saved plan is refused as stale naming the
 *   resource; "already applied" only when live holds every step's `after`.
 * - I6 the server never refuses a step: a plan the server would reject is refused up front.
 * - I7 export then plan is empty.
 * - I8 nothing is ambiguous where live holds no two siblings of one key (renames included).
 * - A refused plan is refused for a reason DESIGN gives (oracle.ts), never skipped unchecked.
 *
 * What these rules expect is computed by the suite's own oracle (oracle.ts), written from DESIGN
 * and sharing no function with the planner: which live resources ignore and protect cover
 * (renames and old names included), which declared resources are live, why a plan is refused.
 *
 * The default run is seeded and small (INVARIANT_RUNS, default 30); `npm run test:deep` runs
 * thousands. A failure prints the seed and the shrunk case (fast-check), which becomes a named
 * regression test in regressions.test.ts.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { createClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/types.js';
import { apply } from '../../src/apply/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { exportManifests } from '../../src/export/index.js';
import { readLiveState } from '../../src/live/index.js';
import { validateManifestTexts } from '../../src/manifest/index.js';
import { StalePlanError, UserError } from '../../src/model/errors.js';
import type { Plan, PlanBasis } from '../../src/model/plan.js';
import type { DesiredState, LiveResource, LiveState } from '../../src/model/resources.js';
import { managedSubResources } from '../../src/pipeline.js';
import { plan } from '../../src/plan/index.js';
import { checkSavedPlan } from '../../src/saved-plan/check-saved-plan.js';
import { fingerprintLive } from '../../src/saved-plan/fingerprint.js';
import { loadSavedPlan, savePlan } from '../../src/saved-plan/saved-plan.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  applyEdits,
  editArb,
  extrasArb,
  faultArb,
  handEditArb,
  orgArb,
  SECRET_VALUE,
  settingsArb,
  type ApplyFault,
  type Edit,
  type Extras,
  type GenSettings,
  type HandEdit,
  type MOrg,
} from './generators.js';
import { aliasesOf, coveredLive, declaredNotLive, globOracle, unjustifiedRefusals } from './oracle.js';
import { renderManifest } from './render-manifest.js';
import { makeExtras, makeHandEdit } from './hand-made.js';
import { checkAccessChanges, holdRulesToOracle, newRuleStats, RULES_UNKNOWN } from './check-access.js';
import { renderRules, rulesArb, type RuleSpec } from './gen-rules.js';

export { RULES_UNKNOWN };

const TOKEN = 'invariant-suite-owner-token-77aa';
/**
 * Cases of a run: 15 in `npm test` (each bootstraps, edits, plans and applies a whole org over HTTP;
 * issue 63: a suite in a minute), while CI's bounded deep run (.ci/run) adds 300 with the commit's
 * seed and `npm run test:deep` 3,000.
 */
export const RUNS = Number(process.env.INVARIANT_RUNS ?? 15);
export const SEED = Number(process.env.INVARIANT_SEED ?? 20261126);

export interface Case {
  initial: MOrg;
  edits: Edit[];
  settings: GenSettings;
  extras: Extras;
  hand: HandEdit;
  fault: ApplyFault;
  /** A --target glob, drawn from the plan's own addresses (index), or none. */
  target: number | undefined;
  allowMassDelete: boolean;
  /** Access rules judged on the state the plan leads to (issue 59); none in older kept cases. */
  rules?: RuleSpec[];
}

export const caseArb: fc.Arbitrary<Case> = fc.record({
  initial: orgArb,
  edits: fc.array(editArb, { maxLength: 6 }),
  settings: settingsArb,
  extras: extrasArb,
  hand: handEditArb,
  fault: faultArb,
  target: fc.option(fc.nat(), { nil: undefined, freq: 6 }),
  allowMassDelete: fc.boolean(),
  rules: rulesArb,
});

/** How the access rules went in the invariants (R1). */
export const ruleStats = newRuleStats();

const readSecret = () => SECRET_VALUE;

/** One emulator for a whole run; each case gets an org of its own, beside a neighbour org nothing may touch. */
export class Harness {
  emulator!: Emulator;
  client!: ApiClient;
  /** Where saved plans are written. */
  readonly dir = mkdtempSync(join(tmpdir(), 'platform-sync-invariants-'));
  private orgs = 0;

  async start(): Promise<void> {
    this.emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    this.client = createClient({ baseUrl: this.emulator.url, token: TOKEN, retry: { baseDelayMs: 1, maxDelayMs: 4 } });
    await this.bootstrap(
      renderManifest(
        {
          name: 'org',
          identities: [{ name: 'bot', relationship: 0 }],
          roles: [],
          bindings: [{ identity: 0, role: 2 }],
          repos: [{ name: 'app' }],
          subscriptions: [],
          idps: [],
          groups: [],
          terms: [],
        },
        'neighbour',
        undefined,
      ),
    );
  }

  async stop(): Promise<void> {
    await this.client?.close();
    await this.emulator?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  load(text: string): DesiredState {
    const result = validateManifestTexts([{ file: 'manifest.yaml', text }]);
    if (!result.state || result.diagnostics.length > 0) {
      throw new Error(
        `generated manifests do not validate:\n${result.diagnostics.map((d) => `${d.location.line}:${d.location.column} ${d.message}`).join('\n')}\n${text}`,
      );
    }
    return result.state;
  }

  read(desired: DesiredState, readmes: 'managed' | 'all' = 'managed'): Promise<LiveState> {
    return readLiveState(this.client, {
      org: { name: desired.org.name },
      subResources: readmes === 'all' ? 'all' : managedSubResources(desired),
    });
  }

  async bootstrap(text: string): Promise<DesiredState> {
    const desired = this.load(text);
    const p = plan(desired, await this.read(desired), { bootstrap: true });
    expect(p.refusals).toEqual([]);
    const result = await apply(p, this.client, { readSecret });
    expect(result.failed).toEqual([]);
    return desired;
  }

  nextOrgName(): string {
    return `case-${++this.orgs}`;
  }

  async neighbourPrint(): Promise<string> {
    const live = await readLiveState(this.client, { org: { name: 'neighbour' }, subResources: 'all' });
    // The test's own print of what it read (no product fingerprint judges "unchanged").
    return JSON.stringify(
      live.resources
        .map((r) => [r.kind, r.uid, r.parentUid, r.updateTime ?? null, r.fields])
        .sort((a, b) => (String(a[1]) < String(b[1]) ? -1 : 1)),
    );
  }
}

/** A live resource as it reads (for "unchanged"): uid, kind and its fields. */
function printOf(r: LiveResource): string {
  // The server's updateTime where it keeps one: a binding whose identity was renamed reads with
  // another path, yet the binding itself did not change.
  return JSON.stringify({ kind: r.kind, uid: r.uid, parentUid: r.parentUid, version: r.updateTime ?? r.fields });
}

/** Steps a target keeps: those it matches and, transitively, what they depend on. */
function targetClosure(p: Plan, glob: RegExp): Set<string> {
  const byAddress = new Map(p.steps.map((s) => [s.address, s]));
  const keep = new Set<string>();
  const pending = p.steps.filter((s) => glob.test(s.address)).map((s) => s.address);
  while (pending.length > 0) {
    const a = pending.pop()!;
    if (keep.has(a)) continue;
    keep.add(a);
    pending.push(...(byAddress.get(a)?.dependsOn ?? []));
  }
  return keep;
}

function writesOf(h: Harness, fromSeq: number) {
  return h.emulator.requestLog.filter((e) => e.seq > fromSeq && e.method !== 'GET');
}

function lastSeq(h: Harness): number {
  return h.emulator.requestLog.at(-1)?.seq ?? 0;
}

/** The plan as `plan --out` writes it and `apply plan.json` reads it back (a refused plan is kept as it is). */
async function saveAndLoad(h: Harness, made: Plan, live: LiveState, basis: PlanBasis): Promise<Plan> {
  if (made.refusals.length > 0) return { ...made, fingerprints: fingerprintLive(live), basis };
  const file = join(h.dir, 'plan.json');
  await savePlan(file, made, live, { basis });
  return loadSavedPlan(file);
}

/** Runs one generated case and checks I1–I8 (and why a refused plan is refused) on it. */
export async function checkCase(h: Harness, c: Case): Promise<void> {
  const orgName = h.nextOrgName();
  // The org as it was, built by a first apply, then changed by hand.
  const first = await h.bootstrap(renderManifest(c.initial, orgName, undefined));
  const uids = await makeExtras(h, await h.read(first), c.extras);
  const edited = applyEdits(c.initial, c.edits);
  const desired = h.load(renderManifest(edited, orgName, c.settings, uids));
  const ignore = desired.settings.ignore.map(globOracle);
  const protect = desired.settings.protect.map(globOracle);

  let live = await h.read(desired);
  const neighbour = await h.neighbourPrint();
  const makePlan = (l: LiveState, targets?: string[]) =>
    plan(desired, l, { allowMassDelete: c.allowMassDelete, ...(targets ? { targets } : {}) });
  const basisOf = (targets?: string[]): PlanBasis => ({
    desired: JSON.parse(JSON.stringify(desired)) as DesiredState,
    options: { allowMassDelete: c.allowMassDelete, now: Date.now(), ...(targets ? { targets } : {}) },
  });
  let first0 = makePlan(live);
  // A target drawn from the plan's own addresses (a glob of its first segment, or one address).
  let targets: string[] | undefined;
  if (c.target !== undefined && first0.steps.length > 0) {
    const address = first0.steps[c.target % first0.steps.length]!.address;
    targets = [c.target % 2 === 0 ? address : `${address.slice(0, address.indexOf(':') + 1)}*`];
  }
  // The plan as made (its access changes), and as saved and loaded back (what is applied).
  let made = makePlan(live, targets);
  let p: Plan = await saveAndLoad(h, made, live, basisOf(targets));

  // I5: a hand edit behind the saved plan's back makes it stale, naming what changed.
  const editedAddress = await makeHandEdit(h, live, c.hand);
  if (editedAddress !== undefined) {
    const error = await checkSavedPlan(p, h.client).then(
      () => undefined,
      (e: unknown) => e,
    );
    // A resource made by hand that the plan never read leaves it exact (it applies what it says);
    // a change to one it read makes it stale, naming it.
    // "Already applied" only where the hand edit did what the plan does: a fresh plan is empty.
    if (error instanceof UserError && error.code === 'PLAN_ALREADY_APPLIED') {
      expect(makePlan(await h.read(desired), targets).steps, 'I5: "already applied" while changes remain').toEqual([]);
    } else if (c.hand.op !== 'create' || error !== undefined) {
      expect(
        error,
        `I5: a saved plan overtaken by a hand edit is refused: ${String((error as Error)?.message).replace(/\n/g, ' ')}`,
      ).toBeInstanceOf(StalePlanError);
      if (c.hand.op !== 'create')
        expect(
          (error as StalePlanError).changed.map((x) => x.address),
          'I5: the stale plan names the edited resource',
        ).toContain(editedAddress);
    }
    live = await h.read(desired);
    first0 = makePlan(live);
    made = makePlan(live, targets);
    p = await saveAndLoad(h, made, live, basisOf(targets));
  }

  // Which live resources ignore and protect cover, by the oracle's own reading of DESIGN §4.
  const ignored = coveredLive(live, desired, ignore, true);
  const protectedLive = coveredLive(live, desired, protect, false);
  // I3 on the plan: no step touches an ignored resource; a delete of a protected one is refused.
  for (const step of p.steps) {
    if (step.action === 'create') continue;
    expect(
      ignored.has(`${step.kind}:${step.uid}`),
      `I3: ${step.action} ${step.address} touches an ignored resource`,
    ).toBe(false);
    if (step.action === 'delete' && protectedLive.has(`${step.kind}:${step.uid}`)) {
      expect(
        p.refusals.map((r) => r.rule),
        `I3: delete of protected ${step.address} not refused`,
      ).toContain('protected');
    }
  }
  // I8: the emulator never holds two siblings of one key, so no resource is ambiguous: a plan
  // refused as ambiguous took two resources for one (the org's account association for the org).
  expect(
    p.refusals.filter((r) => r.rule === 'ambiguous-live').map((r) => r.message),
    'I8: refused as ambiguous',
  ).toEqual([]);
  if (p.refusals.length > 0) {
    // A refused plan is not applied, but why it is refused is checked: a reason DESIGN gives.
    expect(
      unjustifiedRefusals(
        p,
        live,
        { protect: protectedLive, ignore: ignored },
        { maxDeleteRatio: 0.25, allowMassDelete: c.allowMassDelete },
      ),
      'refused without a reason DESIGN gives',
    ).toEqual([]);
    // Export of what is there still plans back to nothing.
    await checkExport(h, desired);
    return;
  }

  // Apply, under a fault maybe; then run again until done (I1 after an interruption).
  const before = new Map(live.resources.map((r) => [`${r.kind}:${r.uid}`, r]));
  const seq = lastSeq(h);
  if (c.fault.kind === 'resets') h.emulator.setFaults({ seed: c.fault.seed, resetRate: 0.15, internalErrorRate: 0.1 });
  const controller = new AbortController();
  let done = 0;
  let result = await apply(p, h.client, {
    readSecret,
    signal: controller.signal,
    onEvent: (e) => {
      if (c.fault.kind === 'interrupt' && e.type === 'step-done' && ++done >= c.fault.after) controller.abort();
    },
  });
  h.emulator.setFaults({});
  if (c.fault.kind === 'none') {
    // I6: the server accepted every step.
    expect(result.failed, 'I6: the server refused a step').toEqual([]);
    expect(
      writesOf(h, seq)
        .filter((e) => e.status >= 400 && !e.faulted)
        .map((e) => `${e.method} ${e.path} ${e.status}`),
      'I6',
    ).toEqual([]);
  }
  let live2 = await h.read(desired);
  for (let round = 0; round < 3 && !result.ok; round++) {
    const again = makePlan(live2, targets);
    expect(
      again.refusals.map((r) => r.message),
      'I1: the re-run after an interrupted apply is refused',
    ).toEqual([]);
    result = await apply(again, h.client, { readSecret });
    live2 = await h.read(desired);
  }
  expect(result.failed, 'I1: the re-run converges').toEqual([]);

  // I1: nothing left to do.
  const after = makePlan(live2, targets);
  // A target that named only what the plan deleted names nothing afterwards (refused as a typo would be): nothing is left.
  expect(
    after.refusals.filter((r) => r.rule !== 'unknown-target').map((r) => r.message),
    'I1: re-plan refused',
  ).toEqual([]);
  expect(
    after.steps.map((s) => `${s.action} ${s.address} ${JSON.stringify(s.action === 'update' ? s.updateMask : '')}`),
    'I1: re-plan not empty',
  ).toEqual([]);

  // A1 (access) and R1 (access rules), each judged by an oracle of its own (check-access.ts).
  // Faulted and targeted applies too: the re-runs converge on the state the (targeted) plan leads to.
  const denied = plan(desired, live, {
    allowMassDelete: c.allowMassDelete,
    denyNewAccess: true,
    ...(targets ? { targets } : {}),
  });
  checkAccessChanges(desired, live, live2, made, denied);
  if (RULES_UNKNOWN === undefined && (c.rules ?? []).length > 0) {
    const rules = renderRules(edited, c.rules!);
    const ruled = plan(h.load(renderManifest(edited, orgName, c.settings, uids, rules)), live, {
      allowMassDelete: c.allowMassDelete,
      ...(targets ? { targets } : {}),
    });
    expect(
      ruled.steps.map((s) => `${s.action} ${s.address}`),
      'R1: rules change no step',
    ).toEqual(made.steps.map((s) => `${s.action} ${s.address}`));
    holdRulesToOracle(rules, ruled, live2, ruleStats, aliasesOf(desired));
  }

  // I2: every declared resource (not ignored) exists live, or the first plan named it.
  if (!targets) {
    for (const address of declaredNotLive(desired, live2)) {
      const named = first0.warnings.some((w) => w.includes(address));
      expect(named, `I2: ${address} is declared, not live, and the plan did not say why`).toBe(true);
    }
  }

  // I3 after: ignored resources are as they were; protected ones still exist.
  const byUid = new Map(live2.resources.map((r) => [`${r.kind}:${r.uid}`, r]));
  for (const [key, r] of ignored) {
    const now = byUid.get(key);
    expect(now && printOf(now), `I3: ignored ${r.address} changed or deleted`).toBe(printOf(r));
  }
  for (const [key, r] of protectedLive) expect(byUid.has(key), `I3: protected ${r.address} deleted`).toBe(true);

  // I4: the neighbour org is untouched; with a target, only the resources its steps name changed.
  expect(await h.neighbourPrint(), 'I4: the neighbour org changed').toBe(neighbour);
  if (targets) {
    const closure = targetClosure(p, globOracle(targets[0]!));
    expect(
      p.steps.map((s) => s.address).filter((a) => !closure.has(a)),
      'I4: a step outside the target',
    ).toEqual([]);
    const stepUids = new Set(p.steps.flatMap((s) => (s.action === 'create' ? [] : [`${s.kind}:${s.uid}`])));
    for (const [key, r] of before) {
      const now = byUid.get(key);
      if (now && printOf(now) === printOf(r)) continue;
      expect(stepUids.has(key), `I4: ${r.address} changed outside --target ${targets[0]}`).toBe(true);
    }
  }

  // I5: "already applied" exactly when live holds every step's after (here: a clean apply).
  if (c.fault.kind === 'none' && p.steps.length > 0) {
    const error = await checkSavedPlan(p, h.client).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(
      error instanceof UserError ? error.code : error,
      `I5: a re-run of an applied plan: ${String((error as Error)?.message)} — steps: ${p.steps.map((s) => `${s.action} ${s.address}`).join(', ')}`,
    ).toBe('PLAN_ALREADY_APPLIED');
  }

  // I7: export then plan is empty.
  await checkExport(h, desired);
}

async function checkExport(h: Harness, desired: DesiredState): Promise<void> {
  const live = await h.read(desired, 'all');
  const files = exportManifests(live);
  const exported = validateManifestTexts(files.map((f) => ({ file: f.file, text: f.text })));
  expect(
    exported.diagnostics.map((d) => d.message),
    'I7: the export validates',
  ).toEqual([]);
  const again = plan(exported.state!, live);
  expect(again.refusals, 'I7: export then plan is refused').toEqual([]);
  expect(
    again.steps.map((s) => `${s.action} ${s.address}`),
    'I7: export then plan is not empty',
  ).toEqual([]);
}
