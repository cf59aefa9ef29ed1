/**
 * Members, as a property (issue 38): for any set of member lines over a small tree of groups —
 * e-mails in any case, several roles for one person, one person in several groups — planning
 * and applying invites them all; once every code is accepted through the emulator, a second plan
 * is empty with every member present; and no code appears in any output (plans in every format,
 * apply's events, drift). INVARIANT_RUNS cases (a share of the invariant runs), seeded by
 * INVARIANT_SEED like the invariants.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apply,
  createClient,
  detectDrift,
  plan,
  planFromManifests,
  renderPlan,
  renderTextDrift,
  serializeApplyEvent,
  type InviteCodeRecord,
} from '../../src/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { RUNS, SEED } from './check-case.js';
import { namesPrincipal, oracleGains } from './access-oracle.js';

const TOKEN = 'members-property-token-0e4d';
const GROUPS = ['', 'eng', 'eng/web', 'ops'] as const;
const PEOPLE = ['alice', 'bob', 'carol'] as const;
const ROLES = ['viewer', 'editor', 'registry.pull'] as const;

const memberLine = fc.record({
  group: fc.constantFrom(...GROUPS),
  person: fc.constantFrom(...PEOPLE),
  upper: fc.boolean(),
  role: fc.constantFrom(...ROLES),
});

/** Manifests of the org with its groups and the member lines (one (e-mail, role) pair per group). */
function manifest(org: string, lines: { group: string; person: string; upper: boolean; role: string }[]): string {
  const members = (group: string, indent: string) => {
    const here = lines.filter((l) => l.group === group);
    if (here.length === 0) return [];
    return [
      `${indent}members:`,
      ...here.map(
        (l) => `${indent}  - {email: ${l.upper ? l.person.toUpperCase() : l.person}@acme.dev, role: ${l.role}}`,
      ),
    ];
  };
  return [
    'apiVersion: platform-sync/v1',
    'org:',
    `  name: ${org}`,
    ...members('', '  '),
    '  groups:',
    '    - name: eng',
    ...members('eng', '      '),
    '      groups:',
    '        - name: web',
    ...members('eng/web', '          '),
    '    - name: ops',
    ...members('ops', '      '),
    '',
  ].join('\n');
}

describe('members, as a property', () => {
  let emulator: Emulator;
  const temp = mkdtempSync(join(tmpdir(), 'platform-sync-members-property-'));
  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
  });
  afterAll(async () => {
    await emulator.close();
    rmSync(temp, { recursive: true, force: true });
  });

  it(
    'after apply and the acceptance of every code, the plan is empty, every member present, and no code was ever shown',
    async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(memberLine, {
            minLength: 1,
            maxLength: 8,
            selector: (l) => `${l.group}|${l.person}|${l.role}`,
          }),
          async (lines) => {
            const org = `org${++run}`;
            const file = join(temp, `${org}.yaml`);
            writeFileSync(file, manifest(org, lines));
            const client = createClient({ baseUrl: emulator.url, token: TOKEN });
            const shown: string[] = [];
            try {
              const first = await planFromManifests([file], client, { bootstrap: true });
              for (const format of ['text', 'json', 'markdown'] as const) shown.push(renderPlan(first.plan, format));
              expect(first.plan.members?.map((m) => m.state)).toEqual(lines.map(() => 'invited'));
              expect(first.plan.refusals).toEqual([]);
              expect(
                plan(first.desired, first.live, { bootstrap: true, denyNewAccess: true, now: first.now }).refusals.map(
                  (r) => r.rule,
                ),
                'A1: --deny-new-access refuses invites',
              ).toEqual(['new-access']);
              const codes: InviteCodeRecord[] = [];
              const result = await apply(first.plan, client, {
                onInviteCode: (r) => codes.push(r),
                onEvent: (e) => shown.push(serializeApplyEvent(e)),
              });
              expect(result.ok, JSON.stringify(result.failed)).toBe(true);
              expect(codes).toHaveLength(lines.length);
              // A1 for people (issue 46), judged by the oracle of its own: every person an invite made able
              // to act is named by the plan's access changes, and --deny-new-access refuses the plan.
              const applied = await planFromManifests([file], client);
              const gains = oracleGains(first.live, applied.live, Date.now());
              for (const gain of gains)
                expect(
                  first.plan.accessChanges?.some(
                    (c) => c.gained.includes(gain.capability) && namesPrincipal(c.principal, c.identity, gain),
                  ),
                  `A1: ${gain.who.label} gains ${gain.capability} on ${gain.group} unnamed`,
                ).toBe(true);
              expect(new Set(gains.map((g) => g.who.label))).toEqual(
                new Set(lines.map((l) => `email ${l.person}@acme.dev`)),
              );
              for (const [i, record] of codes.entries()) {
                // Accepted with the e-mail in another case than the line wrote it.
                const res = await fetch(`${emulator.url}/_emulator/groupInvites:accept`, {
                  method: 'POST',
                  headers: { 'content-type': 'application/json' },
                  body: JSON.stringify({
                    code: record.code,
                    email: record.email!.toLowerCase(),
                    issuer: 'https://accounts.acme.dev',
                    subject: `${org}-${i}`,
                  }),
                });
                expect(res.status, await res.clone().text()).toBe(200);
              }
              const second = await planFromManifests([file], client);
              for (const format of ['text', 'json', 'markdown'] as const) shown.push(renderPlan(second.plan, format));
              expect(second.plan.steps.map((s) => s.address)).toEqual([]);
              expect(second.plan.members?.map((m) => m.state)).toEqual(lines.map(() => 'present'));
              const drift = await detectDrift([file], client);
              expect(drift.report.inSync).toBe(true);
              shown.push(renderTextDrift(drift.report));
              for (const { code } of codes) for (const text of shown) expect(text).not.toContain(code);
            } finally {
              await client.close();
            }
          },
        ),
        { numRuns: Math.max(4, Math.ceil(RUNS / 3)), seed: SEED, endOnFailure: true },
      );
    },
    60_000 + Math.max(4, Math.ceil(RUNS / 3)) * 2_000,
  ); // derived from the case count (issue 47)
});
