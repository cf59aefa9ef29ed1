/**
 * The emulator against a contract fuzzer of our own (issue 39; test/support/contract-fuzzer.ts):
 * requests generated from schemas/platform-api-v2.openapi.json over every operation — a request
 * the contract allows is never refused as invalid, one it forbids always is, and every answer
 * matches the contract — then a walk along each create's links (create → get → patch → delete).
 * Seeded (INVARIANT_SEED). CONTRACT_FUZZ_RUNS random requests over all operations in any order,
 * then a sweep: every operation gets two requests the contract allows and two it forbids, so that
 * none is left to chance whatever the count. The count is 150 in `npm test` (issue 63: a suite in
 * a minute); with INVARIANT_RUNS set, as the deep runs set it, five times that and at least 1,500
 * (CI's bounded deep run 1,500, `npm run test:deep` 15,000).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRoleUid, startEmulator, takeInternalErrors, type Emulator } from '../../src/emulator/index.js';
import { CONTRACT_DOCUMENT } from '../support/contract-document.js';
import { ContractFuzzer, send, urlOf, type FuzzRequest, type UidsByKind } from '../support/contract-fuzzer.js';
import { RUNS, SEED } from './check-case.js';

const TOKEN = 'contract-fuzz-owner-token-a1c9';
const DOC = CONTRACT_DOCUMENT;
const FUZZ_RUNS = Number(
  process.env.CONTRACT_FUZZ_RUNS ?? (process.env.INVARIANT_RUNS ? Math.max(1500, RUNS * 5) : 150),
);
/** Requests of each kind (allowed, forbidden) every operation gets before the random ones. */
const SWEEP = 2;
const DAY = 86_400_000;

/** An org with some of every kind, so that `{uid}` can name one of each. */
const SEED_DOC = {
  orgs: [
    {
      name: 'acme',
      acceptedTerms: ['platform-tos-2026'],
      accountAssociation: { name: 'acme-cloud', amazon: { account: '123456789012' } },
      identities: [
        {
          name: 'ci',
          claimMatch: {
            issuer: 'https://token.actions.githubusercontent.com',
            subject: 'repo:acme/app:ref:refs/heads/main',
          },
        },
        { name: 'aws', awsIdentity: { awsAccount: '123456789012', arn: 'arn:aws:iam::123456789012:role/x' } },
      ],
      roles: [{ name: 'publisher', capabilities: ['repo.list', 'tag.create'] }],
      roleBindings: [{ identity: 'ci', role: 'publisher' }],
      repos: [{ name: 'app', tags: [{ name: 'v1', digest: `sha256:${'1'.repeat(64)}` }] }],
      subscriptions: [{ sink: 'https://hooks.acme.dev/platform' }],
      identityProviders: [
        {
          name: 'okta',
          defaultRole: 'viewer',
          oidc: { issuer: 'https://acme.okta.com', clientId: 'c1', clientSecret: 'a-client-secret-of-16+' },
          groupMappings: [{ externalGroup: 'admins', role: 'owner' }],
        },
      ],
      groupInvites: [
        { role: 'viewer', email: 'dana@acme.dev', expirationTime: new Date(Date.now() + 5 * DAY).toISOString() },
      ],
      groups: [
        { name: 'eng', repos: [{ name: 'tools' }], identities: [{ name: 'eng-ci', servicePrincipal: 'COSIGNED' }] },
      ],
    },
  ],
  advisories: [{ advisoryId: 'CVE-2026-0001', artifactName: 'app' }],
};

/** An emulator seeded with SEED_DOC, the uids of what it holds by kind, and the fuzzer's hints for rules beyond the schema. */
async function startSeeded(fuzzer: ContractFuzzer): Promise<{ emulator: Emulator; uids: UidsByKind }> {
  const emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
  const seeded = emulator.seed(SEED_DOC);
  const uids: UidsByKind = {};
  for (const [key, uid] of Object.entries(seeded.uids)) (uids[key.slice(0, key.indexOf(':'))] ??= []).push(uid);
  (uids.group ??= []).push(...Object.values(seeded.orgUids));
  uids.terms = Object.values(seeded.orgUids);
  const roles = [
    ...(uids.role ?? []),
    ...['viewer', 'editor', 'owner', 'registry.pull', 'registry.push', 'registry.pull_token_creator'].map(
      builtinRoleUid,
    ),
  ];
  const soon = (days: number) => new Date(Date.now() + days * DAY).toISOString();
  fuzzer.hints = {
    roleUid: roles,
    role: roles,
    defaultRole: roles,
    identityUid: uids.identity ?? [],
    scope: Object.values(seeded.orgUids),
    expirationTime: [soon(1), soon(7), soon(29)],
  };
  return { emulator, uids };
}

/**
 * The problems a judge finds with up to `runs` generated listRepos requests to the server at `url`:
 * it stops at the first problem `wanted` matches (issue 63: the rest of the runs proved nothing more).
 */
async function problemsListingRepos(
  judge: ContractFuzzer,
  url: string,
  uids: UidsByKind,
  allowedOnly: boolean,
  runs: number,
  wanted: RegExp,
): Promise<Set<string>> {
  const listRepos = judge.operations.find((o) => o.operationId === 'listRepos')!;
  const found = new Set<string>();
  await fc.check(
    fc.asyncProperty(judge.requestOf(listRepos, uids, allowedOnly), async (r) => {
      const { status, answer } = await send(url, TOKEN, r);
      const problem = judge.problemWith(listRepos, r, judge.judge(listRepos, r), status, answer);
      if (problem) found.add(problem);
      return problem === undefined || !wanted.test(problem);
    }),
    { numRuns: runs, seed: SEED, endOnFailure: true },
  );
  return found;
}

describe('the emulator against its contract, fuzzed', () => {
  let emulator: Emulator;
  let uids: UidsByKind = {};
  const fuzzer = new ContractFuzzer(DOC);

  beforeAll(async () => {
    ({ emulator, uids } = await startSeeded(fuzzer));
  });
  afterAll(() => emulator.close());

  it(
    `holds for ${FUZZ_RUNS} generated requests over all operations, then ${SWEEP * 2} to each: allowed ones taken, forbidden ones refused, every answer as the contract says`,
    async () => {
      const found = new Map<string, string>();
      const stats: string[] = [];
      const seen = new Set<string>();
      const check = async ({ o, r }: { o: (typeof fuzzer.operations)[number]; r: FuzzRequest }): Promise<void> => {
        const verdict = fuzzer.judge(o, r);
        const { status, answer } = await send(emulator.url, TOKEN, r);
        seen.add(`${o.operationId} ${verdict.allowed ? 'allowed' : 'forbidden'}`);
        if (verdict.allowed && status < 300) seen.add(`${o.operationId} taken`);
        if (process.env.CONTRACT_FUZZ_STATS)
          stats.push(`${o.operationId} ${verdict.allowed ? 'allowed' : 'forbidden'} ${status}`);
        const problem = fuzzer.problemWith(o, r, verdict, status, answer);
        if (problem !== undefined) {
          const key = `${o.operationId}: ${problem
            .replace(
              /(forbidden by the contract \()([^)]*)\)/,
              (_m, a: string, reasons: string) =>
                `${a}${reasons
                  .split('; ')
                  .map((x) => x.split(/[ =]/).slice(0, 2).join(' '))
                  .join('; ')})`,
            )
            .replace(/"[^"]*"/g, '…')
            .replace(/[0-9a-f]{16,}/g, 'UID')
            .slice(0, 180)}`;
          if (!found.has(key))
            found.set(
              key,
              `${r.method} ${urlOf(r)} ${r.body === undefined ? '' : JSON.stringify(r.body).slice(0, 200)} → ${status} ${answer.slice(0, 200)}`,
            );
        }
      };
      await fc.assert(
        fc.asyncProperty(
          fc
            .tuple(fc.constantFrom(...fuzzer.operations), fc.boolean())
            .chain(([o, bent]) => fuzzer.requestOf(o, uids, bent).map((r) => ({ o, r }))),
          check,
        ),
        { numRuns: FUZZ_RUNS, seed: SEED },
      );
      // Then the sweep: every operation, with requests the contract allows and ones it forbids (deletes last).
      const sweep = [...fuzzer.operations].sort(
        (a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'),
      );
      // An unbent request may still break a rule the generator does not know (seed 411547: neither of
      // updateIdentity's two was allowed), so the unbent half draws until SWEEP of its requests are allowed.
      for (const o of sweep)
        for (const bent of [false, true]) {
          let counted = 0;
          for (const r of fc.sample(fuzzer.requestOf(o, uids, bent), { numRuns: SWEEP * 25, seed: SEED })) {
            if (counted >= SWEEP) break;
            await check({ o, r });
            if (bent || fuzzer.judge(o, r).allowed) counted++;
          }
        }
      if (process.env.CONTRACT_FUZZ_STATS) {
        const counts = new Map<string, number>();
        for (const line of stats) counts.set(line, (counts.get(line) ?? 0) + 1);
        process.stdout.write(
          [...counts]
            .sort()
            .map(([k, n]) => `${k}: ${n}`)
            .join('\n') + '\n',
        );
      }
      const report = [...found].map(([k, example]) => `${k}\n    e.g. ${example}`);
      expect(
        report,
        `${report.length} kinds of disagreement between the contract and the server:\n${report.join('\n')}`,
      ).toEqual([]);
      // Every operation was reached with a request the contract allows.
      const unreached = fuzzer.operations
        .filter((o) => !seen.has(`${o.operationId} allowed`))
        .map((o) => o.operationId);
      expect(unreached).toEqual([]);
    },
    60_000 + (FUZZ_RUNS + SWEEP * 2 * fuzzer.operations.length) * 100,
  );

  it('can fail: against a contract that says less than the server enforces (order_by as any string, the issue-39 way), it names the disagreement', async () => {
    const loose = structuredClone(DOC) as {
      paths: Record<string, { get: { parameters: { name: string; schema: unknown }[] } }>;
    };
    for (const p of loose.paths['/registry/v2/repos']!.get.parameters)
      if (p.name === 'order_by') p.schema = { type: 'string' };
    const judge = new ContractFuzzer(loose as unknown as Record<string, unknown>);
    const disagreement = 'allowed by the contract, refused by the server (400) on order_by';
    const found = await problemsListingRepos(judge, emulator.url, uids, false, 300, /on order_by$/);
    expect([...found]).toContain(disagreement);
  });

  it('can fail: against an emulator whose answers break the contract (a list without its totalCount), it names the 500s its own check makes of them', async () => {
    const mutant = await startEmulator({
      port: 0,
      tokens: [{ token: TOKEN, role: 'owner' }],
      answerFault: (_r, body) => {
        if (body === null || typeof body !== 'object' || !('totalCount' in body)) return body;
        const { totalCount: _dropped, ...rest } = body as Record<string, unknown>;
        return rest;
      },
    });
    try {
      const judge = new ContractFuzzer(DOC);
      const seeded = mutant.seed(SEED_DOC);
      const mutantUids: UidsByKind = { group: Object.values(seeded.orgUids) };
      const found = [
        ...(await problemsListingRepos(
          judge,
          mutant.url,
          mutantUids,
          true,
          50,
          /the contract allows no internal error/,
        )),
      ].map((p) => p.replace(/\(.*\)/, '(…)'));
      expect(found, found.join('\n')).toContain('answered 500 (…); the contract allows no internal error');
    } finally {
      await mutant.close();
    }
    // Made on purpose: taken here, so that the run's check after each test does not fail this one.
    expect(takeInternalErrors().length).toBeGreaterThan(0);
  });

  it("walks each create's links: what a create makes is got, patched and deleted as its links say", async () => {
    // A fresh org: the generated requests above deleted much of the first one.
    const walkFuzzer = new ContractFuzzer(DOC);
    const { emulator, uids } = await startSeeded(walkFuzzer);
    try {
      await walk(walkFuzzer, emulator, uids);
    } finally {
      await emulator.close();
    }
  });
});

async function walk(fuzzer: ContractFuzzer, emulator: Emulator, uids: UidsByKind): Promise<void> {
  {
    const problems: string[] = [];
    const byId = new Map(fuzzer.operations.map((o) => [o.operationId, o]));
    const creates = fuzzer.operations.filter(
      (o) => o.method === 'POST' && (o.op.responses as Record<string, { links?: unknown }>)['200']?.links !== undefined,
    );
    expect(creates.length).toBeGreaterThan(10);
    const answer = async (r: Parameters<typeof send>[2]) => {
      const { status, answer: text } = await send(emulator.url, TOKEN, r);
      const o = byId.get(r.operationId)!;
      const problem = fuzzer.problemWith(o, r, fuzzer.judge(o, r), status, text);
      if (problem) problems.push(`${r.operationId}: ${problem}`);
      return { status, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
    };
    for (const create of creates) {
      // Requests the contract allows, drawn until one makes something (a name may be taken, a rule beyond the schema unmet).
      const candidates = fc.sample(fuzzer.requestOf(create, uids, false), { numRuns: 60, seed: SEED });
      let made: Record<string, unknown> | undefined;
      for (const r of candidates) {
        if (!fuzzer.judge(create, r).allowed) continue;
        const { status, body } = await answer({ ...r, query: [] });
        if (status === 200) {
          made = body;
          break;
        }
      }
      if (!made) {
        problems.push(`${create.operationId}: none of 60 requests the contract allows made anything`);
        continue;
      }
      const links = (
        create.op.responses as Record<
          string,
          { links: Record<string, { operationId: string; parameters: { uid: string } }> }
        >
      )['200']!.links;
      for (const name of ['get', 'update', 'delete'] as const) {
        const link = links[name];
        if (!link) continue;
        const target = byId.get(link.operationId)!;
        expect(link.parameters.uid).toBe('$response.body#/uid');
        const path = target.template.replace('{uid}', String(made.uid));
        const r = {
          operationId: target.operationId,
          method: target.method,
          path,
          query: [] as [string, string][],
          contentType: 'application/json',
          ...(name === 'update' ? { body: {} } : {}),
        };
        const { status, body } = await answer(r);
        if (name === 'get' && (status !== 200 || body?.uid !== made.uid))
          problems.push(`${target.operationId}: the get link of ${create.operationId} answered ${status}`);
        if (name === 'update' && status !== 200)
          problems.push(
            `${target.operationId}: an empty PATCH through the link of ${create.operationId} answered ${status}`,
          );
        if (name === 'delete') {
          if (status !== 200)
            problems.push(`${target.operationId}: the delete link of ${create.operationId} answered ${status}`);
          else if (
            links.get &&
            (await answer({ ...r, operationId: links.get.operationId, method: 'GET' })).status !== 404
          )
            problems.push(`${create.operationId}: still there after its delete`);
        }
      }
    }
    expect(problems).toEqual([]);
  }
}
