import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { checkFingerprints, fingerprintLive, subResourcesOf } from '../../src/saved-plan/fingerprint.js';
import type { Plan } from '../../src/model/plan.js';
import type { DesiredState } from '../../src/model/resources.js';
import { loadSavedPlan, savePlan } from '../../src/saved-plan/saved-plan.js';
import type { LiveState } from '../../src/model/resources.js';
import { desiredState, emptyLive, liveState, r, uidOf } from './plan-builders.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'platform-sync-saved-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const T1 = '2026-01-01T10:00:00.000Z';
const T2 = '2026-01-02T10:00:00.000Z';

function scenario() {
  const live = liveState([
    { shape: r.group('old'), updateTime: T1 },
    { shape: r.identity('', 'bot', { description: 'a' }), updateTime: T1 },
    r.subscription('', 'https://h.example/x'),
  ]);
  const desired = desiredState([
    r.identity('', 'bot', { description: 'b' }),
    r.subscription('', 'https://h.example/x'),
    r.repo('', 'new'),
  ]);
  return { live, desired, plan: savedPlanOf(desired, live) };
}

/** A plan as `plan --out` saves it: with a fingerprint of every live resource it read. */
function savedPlanOf(desired: DesiredState, live: LiveState): Plan {
  return {
    ...plan(desired, live, { bootstrap: true }),
    fingerprints: fingerprintLive(live),
    basis: { desired, options: { bootstrap: true } },
  };
}

function withResource(live: LiveState, extra: LiveState['resources'][number]): LiveState {
  return { ...live, resources: [...live.resources, extra] };
}

describe('saved plans', () => {
  it('round-trips through a file with its fingerprints and nothing else', async () => {
    const { plan: p, live } = scenario();
    const path = join(dir, 'plan.json');
    await savePlan(path, { ...p, fingerprints: [] }, live, { basis: p.basis! });
    const text = await readFile(path, 'utf8');
    expect(Object.keys(JSON.parse(text))).toEqual([
      'formatVersion',
      'org',
      'summary',
      'steps',
      'warnings',
      'fingerprints',
      'basis',
    ]);
    expect(await loadSavedPlan(path)).toEqual(p);
    expect(p.fingerprints.map((f) => f.address)).toEqual([
      'group:old',
      'identity:bot',
      'org',
      'subscription:https://h.example/x',
    ]);
  });

  it('is always redacted: without a redactor, the secrets of the environment never reach the file (issue 52)', async () => {
    const secret = 'saved-plan-secret-value-9f3c2a71';
    const desired = desiredState([r.identity('', 'bot', { description: `leaked ${secret}` })]);
    const p = plan(desired, emptyLive(), { bootstrap: true });
    const path = join(dir, 'redacted.json');
    process.env.PLATFORM_SYNC_SECRET_SAVED_PLAN_TEST = secret;
    try {
      await savePlan(path, p, emptyLive(), { basis: { desired, options: { bootstrap: true } } });
    } finally {
      delete process.env.PLATFORM_SYNC_SECRET_SAVED_PLAN_TEST;
    }
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(secret);
    expect(text).toContain('leaked [REDACTED]');
  });

  it('refuses files that are not saved plans, saying why', async () => {
    const cases: [string, string, RegExp][] = [
      ['missing.json', '', /cannot read the plan file .*missing\.json: no such file or directory/],
      ['text.json', 'hello', /text\.json is not a usable platform-sync plan: it is not JSON/],
      ['array.json', '[]', /it is not a JSON object/],
      ['manifest.json', '{"apiVersion":"platform-sync/v1"}', /it has no formatVersion/],
      [
        'future.json',
        '{"formatVersion":9,"summary":{},"steps":[]}',
        /formatVersion 9 is not supported \(this version reads 1\)/,
      ],
      [
        'bad-step.json',
        '{"formatVersion":1,"org":{"name":"a"},"summary":{"create":0,"update":0,"delete":1},"steps":[{"action":"remove","kind":"repo","address":"repo:x"}],"fingerprints":[]}',
        /\/steps\/0\/action: must be equal to one of the allowed values/,
      ],
      [
        'printed.json',
        '{"formatVersion":1,"org":{"name":"a"},"summary":{"create":0,"update":0,"delete":0},"steps":[],"warnings":[]}',
        /it has no fingerprints: save plans with `plan --out`/,
      ],
    ];
    for (const [name, content, message] of cases) {
      const path = join(dir, name);
      if (content) await writeFile(path, content);
      await expect(loadSavedPlan(path), name).rejects.toThrow(message);
    }
  });
});

describe('checkFingerprints', () => {
  it('accepts an unchanged org', () => {
    const { live, plan: p } = scenario();
    expect(checkFingerprints(p, live)).toEqual([]);
  });

  it('names a changed updateTime, a changed hash, and a resource gone', () => {
    const { live, plan: p } = scenario();
    const changed: LiveState = {
      ...live,
      resources: live.resources
        .filter((x) => x.address !== 'group:old')
        .map((x) => (x.address === 'identity:bot' ? { ...x, updateTime: T2 } : x))
        .map((x) =>
          x.address === 'org' ? { ...x, fields: { name: 'acme', description: 'changed' } } : x,
        ) as LiveState['resources'],
    };
    const stale = checkFingerprints(p, changed);
    expect(stale.map((s) => s.address)).toEqual(['group:old', 'identity:bot', 'org']);
    expect(stale[0]!.reason).toBe(`gone (uid ${uidOf(live, 'group:old')})`);
    expect(stale[1]!.reason).toBe(`changed (${T1} → ${T2})`);
    expect(stale[2]!.reason).toMatch(/^changed \(sha256:[0-9a-f]{64} → sha256:[0-9a-f]{64}\)$/);
  });

  it('names a resource made since at an address the plan creates, and a new child of a deleted group', () => {
    const { live, plan: p } = scenario();
    const orgUid = uidOf(live, 'org');
    let moved = withResource(live, {
      ...r.repo('', 'new'),
      uid: `${orgUid}/00000000000000aa`,
      parentUid: orgUid,
    } as never);
    moved = withResource(moved, {
      ...r.identity('old', 'late'),
      uid: `${uidOf(live, 'group:old')}/00000000000000bb`,
      parentUid: uidOf(live, 'group:old'),
    } as never);
    expect(checkFingerprints(p, moved)).toEqual([
      { address: 'identity:old/late', reason: 'new inside group:old, which the plan deletes' },
      { address: 'repo:new', reason: `created since the plan (uid ${orgUid}/00000000000000aa)` },
    ]);
  });

  it('names a new binding to an identity the plan deletes, and refuses to judge from an incomplete read', () => {
    const live = liveState([r.identity('', 'keep'), r.identity('', 'gone')]);
    const p = savedPlanOf(desiredState([r.identity('', 'keep')]), live);
    expect(p.steps.map((s) => `${s.action} ${s.address}`)).toEqual(['delete identity:gone']);
    const orgUid = uidOf(live, 'org');
    const bound = withResource(live, {
      ...r.binding('', 'gone', 'viewer'),
      uid: `${orgUid}/00000000000000cc`,
      parentUid: orgUid,
    } as never);
    expect(checkFingerprints(p, bound)).toEqual([
      { address: 'roleBinding:gone=viewer', reason: 'new, and references identity:gone, which the plan deletes' },
    ]);
    const incomplete: LiveState = {
      ...live,
      incomplete: [{ kind: 'identity', reason: 'identities: uid x was returned twice' }],
    };
    expect(checkFingerprints(p, incomplete)).toEqual([
      {
        address: 'identity',
        reason: 'the live read was incomplete, so the plan cannot be checked (identities: uid x was returned twice)',
      },
    ]);
  });

  it('notices when the org of a bootstrap plan appeared, or the org is another one', () => {
    const bootstrap = savedPlanOf(desiredState([r.repo('', 'x')]), emptyLive());
    expect(bootstrap.fingerprints).toEqual([]);
    expect(checkFingerprints(bootstrap, emptyLive())).toEqual([]);
    const appeared = liveState([]);
    expect(checkFingerprints(bootstrap, appeared)).toEqual([
      { address: 'org', reason: `the org was created (${uidOf(appeared, 'org')}) after the plan, which creates it` },
      { address: 'org', reason: `created since the plan (uid ${uidOf(appeared, 'org')})` },
    ]);
    const { plan: p } = scenario();
    const other = liveState([], { orgUid: 'e'.repeat(40) });
    expect(checkFingerprints(p, other).find((x) => x.address === 'org')).toEqual({
      address: 'org',
      reason: `the org is now ${'e'.repeat(40)}, the plan was made for ${uidOf(scenario().live, 'org')}`,
    });
  });

  it('fingerprints every live resource, readme excluded from the hash', () => {
    const a = liveState([r.repo('', 'x', { description: 'd', readme: 'one' })]);
    const b = liveState([r.repo('', 'x', { description: 'd' })]);
    expect(fingerprintLive(a)).toEqual(fingerprintLive(b));
    expect(fingerprintLive(a)).toHaveLength(2);
  });

  it('compares the readme a plan changes with the live one, since a readme edit may not move updateTime', () => {
    const live = liveState([{ shape: r.repo('', 'app', { description: 'd', readme: 'old' }), updateTime: T1 }]);
    const saved = savedPlanOf(desiredState([r.repo('', 'app', { readme: 'new' })]), live);
    expect(subResourcesOf(saved)).toEqual(new Set(['repo:app']));
    expect(checkFingerprints(saved, live)).toEqual([]);
    // Someone edits the readme; the repo's updateTime stays as it was.
    const edited = liveState([{ shape: r.repo('', 'app', { description: 'd', readme: 'by hand' }), updateTime: T1 }]);
    expect(checkFingerprints(saved, edited)).toEqual([
      { address: 'repo:app', reason: 'readme changed since the plan' },
    ]);
  });
});
