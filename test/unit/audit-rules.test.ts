/**
 * The audit rules of DESIGN.md §7, each at its boundaries, over the model the planner uses
 * (desired and live states built like the readers build them). One describe per rule module.
 */
import { describe, expect, it } from 'vitest';
import { audit, failsAt, RULES, SEVERITIES, type AuditOptions, type Finding } from '../../src/audit/index.js';
import { pullRequestProbe } from '../../src/audit/github-actions.js';
import type { LiveResource, LiveState } from '../../src/model/resources.js';
import { desiredState, liveState, r } from './plan-builders.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const OPTIONS: AuditOptions = { now: NOW, staleDays: 90, expiryDays: 30 };
const GHA = 'https://token.actions.githubusercontent.com';

const gha = (subjectPattern: string) => ({ claimMatch: { issuer: GHA, subjectPattern } });
const findings = (report: { findings: Finding[] }, rule: string) => report.findings.filter((f) => f.rule === rule);
/** Live state with times set on one resource (by address), as the API reports them. */
function withTimes(
  live: LiveState,
  address: string,
  times: Partial<Pick<LiveResource, 'createTime' | 'lastSeenTime'>>,
): LiveState {
  return { ...live, resources: live.resources.map((x) => (x.address === address ? { ...x, ...times } : x)) };
}
const iso = (ms: number) => new Date(ms).toISOString();

describe('the rule registry', () => {
  it('holds the rules of DESIGN.md §7 (rev 4 included) and the access rules of issue 46, each with a title, help and a severity', () => {
    expect(RULES.map((x) => x.id).sort()).toEqual([
      'access-rule',
      'eol-tags',
      'escalation-path',
      'invite-expired',
      'invite-outside-domain',
      'issuer-pattern',
      'keys-expiring',
      'open-invite',
      'outside-identity',
      'pattern-any-owner',
      'pattern-pull-request',
      'sso-write-access',
      'stale-identity',
      'sync-expiring',
      'unmanaged-write-access',
    ]);
    for (const rule of RULES) {
      expect(rule.title.length, rule.id).toBeGreaterThan(10);
      expect(rule.help.length, rule.id).toBeGreaterThan(20);
      expect(SEVERITIES).toContain(rule.severity);
    }
  });
});

describe('pattern-any-owner', () => {
  const run = (fields: object) =>
    findings(audit(desiredState([r.identity('', 'ci', fields)]), liveState([]), OPTIONS), 'pattern-any-owner');

  it('fires (high, at the manifest location) for a subject pattern that takes any owner', () => {
    const [f] = run(gha('repo:.*:ref:refs/heads/main'));
    expect(f).toMatchObject({
      severity: 'high',
      address: 'identity:ci',
      location: { file: 'manifest.yaml', line: 2, column: 1 },
    });
    expect(f!.message).toContain('repo:platform-sync-audit-probe/probe:ref:refs/heads/main');
  });

  it('does not fire for a pattern anchored to one owner, nor for another issuer', () => {
    expect(run(gha('repo:acme/.*:ref:refs/heads/main'))).toEqual([]);
    expect(run({ claimMatch: { issuer: 'https://gitlab.com', subjectPattern: '.*' } })).toEqual([]);
  });

  it('fires when an issuer pattern admits GitHub Actions (RE2, matched in full)', () => {
    expect(
      run({ claimMatch: { issuerPattern: 'https://token\\.actions\\.githubusercontent\\.com', subjectPattern: '.*' } }),
    ).toHaveLength(1);
    expect(run({ claimMatch: { issuerPattern: 'https://token\\.actions', subjectPattern: '.*' } })).toEqual([]);
  });
});

describe('pattern-pull-request', () => {
  const run = (identityFields: object, more: Parameters<typeof desiredState>[0] = []) =>
    findings(
      audit(desiredState([r.identity('', 'ci', identityFields), ...more]), liveState([]), OPTIONS),
      'pattern-pull-request',
    );

  it('probes <prefix>:pull_request with the literal repo:<owner>/<repo> prefix; a .*-style repo part as probe', () => {
    expect(pullRequestProbe('repo:acme/app:.*')).toBe('repo:acme/app:pull_request');
    expect(pullRequestProbe('^repo:acme/app\\.web:.*')).toBe('repo:acme/app.web:pull_request');
    expect(pullRequestProbe('repo:acme/.*')).toBe('repo:acme/probe:pull_request');
    expect(pullRequestProbe('repo:[a-z]+/app:.*')).toBe('repo:platform-sync-audit-probe/probe:pull_request');
  });

  it('a pattern that admits pull requests: medium without a write role', () => {
    const [f] = run(gha('repo:acme/app:.*'));
    expect(f).toMatchObject({ severity: 'medium', address: 'identity:ci' });
    expect(f!.message).toContain('repo:acme/app:pull_request');
  });

  it('a repo part that is no literal and does not match the probe (an alternation, an optional suffix) still fires, naming a pull-request subject it matches (found by the review)', () => {
    for (const [pattern, subject] of [
      ['repo:acme/(app|web):.*', 'repo:acme/app:pull_request'],
      ['repo:acme/app(-web)?:.*', 'repo:acme/app:pull_request'],
      ['repo:acme/(web|app):(pull_request|ref:refs/heads/main)', /repo:acme\/(web|app):pull_request/],
      ['repo:acme/[ab]pp:pull_reques\\w', 'repo:acme/app:pull_request'],
    ] as const) {
      const [f] = run(gha(pattern));
      expect(f, pattern).toMatchObject({ severity: 'medium', address: 'identity:ci' });
      expect(f!.message, pattern).toMatch(subject);
    }
    expect(run(gha('repo:acme/(app|web):ref:refs/heads/.*'))).toEqual([]);
  });

  it('one that does not (branches only) does not fire', () => {
    expect(run(gha('repo:acme/app:ref:refs/heads/.*'))).toEqual([]);
    expect(run(gha('repo:acme/.*:ref:refs/heads/main'))).toEqual([]);
  });

  it('high when the identity holds a write role: by built-in name, or a custom role by its capabilities', () => {
    expect(run(gha('repo:acme/.*'), [r.binding('', 'ci', 'editor')])[0]).toMatchObject({ severity: 'high' });
    expect(run(gha('repo:acme/.*'), [r.binding('', 'ci', 'registry.push')])[0]).toMatchObject({ severity: 'high' });
    expect(run(gha('repo:acme/.*'), [r.binding('', 'ci', 'viewer')])[0]).toMatchObject({ severity: 'medium' });
    const publisher = r.role('', 'publisher', { capabilities: ['repo.list', 'tag.create'] });
    const reader = r.role('', 'reader', { capabilities: ['repo.list', 'tag.list'] });
    const high = run(gha('repo:acme/.*'), [publisher, r.binding('', 'ci', { path: 'publisher' })])[0]!;
    expect(high.severity).toBe('high');
    expect(high.message).toContain('publisher');
    expect(run(gha('repo:acme/.*'), [reader, r.binding('', 'ci', { path: 'reader' })])[0]).toMatchObject({
      severity: 'medium',
    });
  });
});

describe('issuer-pattern', () => {
  it('fires (medium) for an issuerPattern, not for an exact issuer', () => {
    const report = audit(
      desiredState([
        r.identity('', 'a', { claimMatch: { issuerPattern: 'https://.*', subject: 'x' } }),
        r.identity('', 'b', { claimMatch: { issuer: GHA, subject: 'x' } }),
      ]),
      liveState([]),
      OPTIONS,
    );
    expect(findings(report, 'issuer-pattern').map((f) => [f.address, f.severity])).toEqual([['identity:a', 'medium']]);
  });
});

describe('stale-identity', () => {
  const run = (times: Partial<Pick<LiveResource, 'createTime' | 'lastSeenTime'>>, staleDays = 90) => {
    const identity = r.identity('', 'bot', { claimMatch: { issuer: GHA, subject: 'x' } });
    return findings(
      audit(desiredState([identity]), withTimes(liveState([identity]), 'identity:bot', times), {
        ...OPTIONS,
        staleDays,
      }),
      'stale-identity',
    );
  };

  it('89 days unseen is fine, 91 days is stale (medium, at the manifest location)', () => {
    expect(run({ createTime: iso(NOW - 400 * DAY), lastSeenTime: iso(NOW - 89 * DAY) })).toEqual([]);
    const [f] = run({ createTime: iso(NOW - 400 * DAY), lastSeenTime: iso(NOW - 91 * DAY) });
    expect(f).toMatchObject({ severity: 'medium', address: 'identity:bot', location: { line: 2 } });
    expect(f!.message).toContain('last seen 91 days ago');
  });

  it('never seen: stale once created more than --stale-days ago', () => {
    expect(run({ createTime: iso(NOW - 89 * DAY) })).toEqual([]);
    expect(run({ createTime: iso(NOW - 91 * DAY) })[0]!.message).toContain('never seen, and created 91 days ago');
  });

  it('--stale-days moves the line; an identity not created yet is never stale', () => {
    expect(run({ createTime: iso(NOW - 400 * DAY), lastSeenTime: iso(NOW - 31 * DAY) }, 30)).toHaveLength(1);
    expect(findings(audit(desiredState([r.identity('', 'new')]), liveState([]), OPTIONS), 'stale-identity')).toEqual(
      [],
    );
  });

  it('a live identity the manifests leave out is reviewed too, without a location', () => {
    const live = withTimes(liveState([r.identity('', 'old')]), 'identity:old', {
      createTime: iso(NOW - 500 * DAY),
      lastSeenTime: iso(NOW - 200 * DAY),
    });
    const [f] = findings(audit(desiredState([]), live, OPTIONS), 'stale-identity');
    expect(f).toMatchObject({ address: 'identity:old' });
    expect(f!.location).toBeUndefined();
  });
});

describe('keys-expiring', () => {
  const run = (expirationTime: string) =>
    findings(
      audit(
        desiredState([
          r.identity('', 'signer', {
            staticKeys: { issuer: 'https://i.acme.dev', subject: 's', issuerKeys: '{"keys":[]}', expirationTime },
          }),
        ]),
        liveState([]),
        OPTIONS,
      ),
      'keys-expiring',
    );

  it('expired is high, expiring within --expiry-days is medium, later is fine', () => {
    expect(run(iso(NOW - DAY))[0]).toMatchObject({ severity: 'high' });
    expect(run(iso(NOW + 29 * DAY))[0]).toMatchObject({ severity: 'medium' });
    expect(run(iso(NOW + 31 * DAY))).toEqual([]);
  });

  it('says one day as English does: "1 day", never "1 days" (issue 50)', () => {
    expect(run(iso(NOW - DAY))[0]!.message).toMatch(/expired 1 day ago/);
    expect(run(iso(NOW + DAY))[0]!.message).toMatch(/expire in 1 day \(/);
    expect(run(iso(NOW + 2 * DAY))[0]!.message).toMatch(/expire in 2 days \(/);
  });

  it('a time that is no time is reported, not skipped', () => {
    expect(run('next tuesday')[0]!.message).toContain('is not a time');
  });
});

describe('unmanaged-write-access', () => {
  it('a live write binding the manifests leave out is medium; a read-only one or a declared one is not', () => {
    const identity = r.identity('', 'human-ann');
    const live = liveState([
      identity,
      r.binding('', 'human-ann', 'owner'),
      r.binding('', 'human-ann', 'viewer'),
      r.binding('', 'human-ann', 'editor'),
    ]);
    const report = audit(desiredState([identity, r.binding('', 'human-ann', 'editor')]), live, OPTIONS);
    expect(findings(report, 'unmanaged-write-access').map((f) => [f.address, f.severity])).toEqual([
      ['roleBinding:human-ann=owner', 'medium'],
    ]);
  });
});

describe('outside-identity', () => {
  it('a binding to an identity outside the org (identityUid) is low', () => {
    const uid = `${'b'.repeat(40)}/00000000000000aa`;
    const live = liveState([r.binding('', { uid }, 'viewer')]);
    const [f] = findings(audit(desiredState([]), live, OPTIONS), 'outside-identity');
    expect(f).toMatchObject({ severity: 'low' });
    expect(f!.message).toContain(uid);
  });
});

describe('eol-tags', () => {
  it('a managed repo with deprecated tags is medium, naming them; an unmanaged repo is not reviewed', () => {
    const live = liveState([
      r.repo('', 'nginx'),
      r.tag('', 'nginx', '1.27'),
      r.tag('', 'nginx', '1.25', undefined, true),
      r.tag('', 'nginx', '1.24', undefined, true),
      r.repo('', 'other'),
      r.tag('', 'other', '0.1', undefined, true),
    ]);
    const report = audit(desiredState([r.repo('', 'nginx')]), live, OPTIONS);
    expect(findings(report, 'eol-tags').map((f) => [f.address, f.severity, f.message])).toEqual([
      ['repo:nginx', 'medium', '2 end-of-life tags: 1.24, 1.25'],
    ]);
  });
});

describe('--fail-on', () => {
  const report = audit(
    desiredState([r.identity('', 'ci', { claimMatch: { issuerPattern: 'https://.*', subject: 'x' } })]),
    liveState([r.binding('', { uid: `${'c'.repeat(40)}/0000000000000001` }, 'viewer')]),
    OPTIONS,
  );

  it('fails at each level exactly when a finding is at or above it', () => {
    expect(report.summary).toEqual({ high: 0, medium: 1, low: 1 });
    expect(failsAt(report, 'low')).toBe(true);
    expect(failsAt(report, 'medium')).toBe(true);
    expect(failsAt(report, 'high')).toBe(false);
    const clean = audit(desiredState([]), liveState([]), OPTIONS);
    for (const level of SEVERITIES) expect(failsAt(clean, level)).toBe(false);
  });

  it('findings come most severe first', () => {
    expect(report.findings.map((f) => f.severity)).toEqual(['medium', 'low']);
  });
});

describe('audit judges the effective org (issue 37, DESIGN.md §7 rev 4): named regressions', () => {
  const keys = (expirationTime: string) => ({
    staticKeys: { issuer: 'https://i.acme.dev', subject: 's', issuerKeys: '{"keys":[{}]}', expirationTime },
  });

  it('regression: an identity declared by name only whose live staticKeys expired 5 days ago is keys-expiring, high', () => {
    const report = audit(
      desiredState([r.identity('', 'signer')]),
      liveState([r.identity('', 'signer', keys(iso(NOW - 5 * DAY)))]),
      OPTIONS,
    );
    expect(findings(report, 'keys-expiring').map((f) => [f.address, f.severity])).toEqual([
      ['identity:signer', 'high'],
    ]);
  });

  it('regression: … and one whose live keys expire in 10 days is keys-expiring, medium', () => {
    const report = audit(
      desiredState([r.identity('', 'signer')]),
      liveState([r.identity('', 'signer', keys(iso(NOW + 10 * DAY)))]),
      OPTIONS,
    );
    expect(findings(report, 'keys-expiring').map((f) => [f.address, f.severity])).toEqual([
      ['identity:signer', 'medium'],
    ]);
  });

  it('regression: a live subjectPattern that admits pull requests, on an identity declared without claimMatch, is judged', () => {
    const report = audit(
      desiredState([r.identity('', 'ci')]),
      liveState([r.identity('', 'ci', gha('repo:acme/app:.*'))]),
      OPTIONS,
    );
    expect(findings(report, 'pattern-pull-request').map((f) => f.address)).toEqual(['identity:ci']);
  });

  it('the declared relationship wins over the live one (the manifest manages it)', () => {
    const report = audit(
      desiredState([r.identity('', 'ci', gha('repo:acme/app:ref:refs/heads/main'))]),
      liveState([r.identity('', 'ci', gha('repo:acme/app:.*'))]),
      OPTIONS,
    );
    expect(findings(report, 'pattern-pull-request')).toEqual([]);
  });

  it('regression: pattern-any-owner reads the owner part from the syntax — repo:initech.*/app and repo:[^/]+/deploy, bound to owner, fail --fail-on high', () => {
    for (const pattern of ['repo:initech.*/app:ref:refs/heads/main', 'repo:[^/]+/deploy:ref:refs/heads/main']) {
      const report = audit(
        desiredState([r.identity('', 'ci', gha(pattern)), r.binding('', 'ci', 'owner')]),
        liveState([]),
        OPTIONS,
      );
      const found = findings(report, 'pattern-any-owner');
      expect(
        found.map((f) => [f.address, f.severity]),
        pattern,
      ).toEqual([['identity:ci', 'high']]);
      expect(found[0]!.message).toContain('not one literal owner');
      expect(failsAt(report, 'high'), pattern).toBe(true);
    }
  });

  it('one literal owner does not fire, escapes and flags included; a class or any-character in the owner does', () => {
    const owner = (pattern: string) =>
      findings(audit(desiredState([r.identity('', 'ci', gha(pattern))]), liveState([]), OPTIONS), 'pattern-any-owner')
        .length;
    for (const ok of [
      'repo:acme/app:ref:refs/heads/.*',
      '^repo:acme-corp/.*',
      '(?i)repo:acme/app:.*',
      'repo:acme\\.io/app:.*',
    ])
      expect(owner(ok), ok).toBe(0);
    for (const bad of [
      'repo:acme.io/app:.*',
      'repo:\\w+/app:.*',
      'repo:(acme|evil)/app:.*',
      'repo:acme?/app:.*',
      '.*',
      'repo:/app:.*',
    ])
      expect(owner(bad), bad).toBe(1);
  });

  it('issue 58: a literal owner part that the rest of the pattern widens fires — decided on the language, as the gate decides it', () => {
    const owner = (pattern: string) =>
      findings(audit(desiredState([r.identity('', 'ci', gha(pattern))]), liveState([]), OPTIONS), 'pattern-any-owner');
    for (const bad of ['repo:acme/?.*', 'repo:acme/*.*', 'repo:acme/{0}.*', 'repo:acme/.*|repo:evil/.*']) {
      expect(
        owner(bad).map((f) => f.message),
        bad,
      ).toEqual([expect.stringContaining('more than one owner')]);
    }
    expect(owner('repo:acme/x|.*').map((f) => f.message)).toEqual([expect.stringContaining('of any owner')]);
    for (const ok of ['repo:acme/(app|web):.*', 'repo:acme/app:.*']) expect(owner(ok), ok).toEqual([]);
  });
});
