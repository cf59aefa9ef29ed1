/**
 * Every machine-readable output has its JSON Schema in schemas/ (DESIGN.md §5, issue 40 item 4),
 * and each output of a real run is held to it: plan, drift, show, audit, access, and every line
 * of `apply --format json` (the events the GitHub Action reads).
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { ACME, REPO_ROOT, runCli, useSuiteEmulator } from './cli-harness.js';

const SCHEMAS = ['plan', 'drift', 'show', 'audit', 'access', 'apply-events'] as const;
const ajv = new Ajv2020({ strict: false, allErrors: true });
for (const name of SCHEMAS)
  ajv.addSchema(
    JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', `${name}.schema.json`), 'utf8')) as object,
    `${name}.schema.json`,
  );
const validator = (name: (typeof SCHEMAS)[number]): ValidateFunction => ajv.getSchema(`${name}.schema.json`)!;
const problems = (name: (typeof SCHEMAS)[number], value: unknown): string[] => {
  const v = validator(name);
  return v(value)
    ? []
    : (v.errors ?? []).slice(0, 5).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
};

describe('machine-readable outputs and their schemas', () => {
  const suite = useSuiteEmulator('output-schemas-token-9a3e', 'output-schemas', () => mkdirSync(dir));
  const dir = join(suite.dir, 'm');
  const run = (args: string[]) => runCli(args, { env: suite.env });

  it('apply --format json: every line is an event of schemas/apply-events.schema.json, the plan line a plan of plan.schema.json', async () => {
    const apply = await run(['apply', ACME, '--bootstrap', '--auto-approve', '--format', 'json']);
    expect(apply.code, apply.stderr).toBe(0);
    const lines = apply.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines.map((l) => l.type)).toEqual(
      expect.arrayContaining(['plan', 'start', 'step-start', 'step-done', 'end']),
    );
    for (const line of lines) expect(problems('apply-events', line), line.type).toEqual([]);
  });

  it('plan, drift, show, audit and access --format json hold to their schemas, drift with every category in it', async () => {
    // Drift of each kind: a changed description, a repo made by hand, a declared repo deleted.
    writeFileSync(
      join(dir, 'org.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  description: Changed in git\n  repos:\n    - {name: not-yet-made}\n',
    );
    const outputs: [(typeof SCHEMAS)[number], string[]][] = [
      ['plan', ['plan', ACME, '--format', 'json']],
      ['drift', ['drift', dir, '--format', 'json']],
      ['show', ['show', ACME, '--format', 'json']],
      ['audit', ['audit', ACME, '--format', 'json']],
      ['access', ['access', ACME, '--identity', 'identity:release-bot', '--format', 'json']],
    ];
    for (const [schema, args] of outputs) {
      const r = await run(args);
      expect([0, 2], `${args.join(' ')}: ${r.stderr}`).toContain(r.code);
      const value = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(problems(schema, value), args.join(' ')).toEqual([]);
      if (schema === 'drift')
        expect(value.summary).toEqual({
          changed: expect.any(Number),
          unmanaged: expect.any(Number),
          missing: expect.any(Number),
        });
      if (schema === 'drift')
        expect(
          Object.values(value.summary as Record<string, number>).every((n) => n > 0),
          JSON.stringify(value.summary),
        ).toBe(true);
    }
  });

  it('with access rules and escalation: plan (rule results, obtains), apply, drift and access (obtainable) hold to their schemas, and a rule result with a member they do not know is refused', async () => {
    const rules = join(suite.dir, 'rules');
    mkdirSync(rules, { recursive: true });
    const org = (bot: boolean) =>
      [
        'apiVersion: platform-sync/v1',
        'org:',
        '  name: ruled',
        '  identities:',
        '    - {name: release-bot, servicePrincipal: COSIGNED}',
        '    - {name: role-bot, servicePrincipal: INGESTER}',
        '  roles:',
        '    - {name: role-editor, capabilities: [roles.update, roles.list]}',
        '  roleBindings:',
        '    - {identity: release-bot, role: owner}',
        ...(bot ? ['    - {identity: role-bot, role: role-editor}'] : []),
        '  accessRules:',
        '    - {name: only-release-bot-binds, capabilities: [role_bindings.create], onlyPrincipals: ["identity:release-bot"]}',
        '    - {name: one-owner, role: owner, count: {max: 1}}',
      ].join('\n');
    writeFileSync(join(rules, 'org.yaml'), org(false));
    const apply = await run(['apply', rules, '--bootstrap', '--auto-approve', '--format', 'json']);
    expect(apply.code, apply.stderr).toBe(0);
    const planLine = apply.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; plan?: { accessRules?: unknown[] } })
      .find((l) => l.type === 'plan')!;
    expect(planLine.plan!.accessRules).toHaveLength(2);
    expect(problems('apply-events', planLine)).toEqual([]);
    writeFileSync(join(rules, 'org.yaml'), org(true));
    const plan = JSON.parse((await run(['plan', rules, '--format', 'json'])).stdout) as {
      accessRules: Record<string, unknown>[];
      accessChanges: { obtains?: string }[];
    };
    expect(plan.accessRules.map((r) => r.passed)).toEqual([false, true]);
    expect(plan.accessChanges.some((c) => c.obtains !== undefined)).toBe(true);
    expect(problems('plan', plan)).toEqual([]);
    plan.accessRules[0]!.extra = 1;
    expect(problems('plan', plan)).not.toEqual([]);
    const drift = JSON.parse((await run(['drift', rules, '--format', 'json'])).stdout) as { accessRules: unknown[] };
    expect(drift.accessRules).toHaveLength(2);
    expect(problems('drift', drift)).toEqual([]);
    const access = JSON.parse((await run(['access', rules, '--identity', 'role-bot', '--format', 'json'])).stdout) as {
      grants: { obtainable?: string }[];
    };
    expect(access.grants.some((g) => g.obtainable !== undefined)).toBe(true);
    expect(problems('access', access)).toEqual([]);
  });

  it('the schemas can fail: an output with a member they do not know is refused', () => {
    expect(problems('show', { formatVersion: 1, org: { name: 'a', uid: 'u' }, resources: [], extra: 1 })).not.toEqual(
      [],
    );
    expect(
      problems('apply-events', { type: 'step-done', step: { action: 'create', kind: 'repo', address: 'repo:x' } }),
    ).not.toEqual([]);
  });
});
