/**
 * A contract fuzzer of our own (issue 39), in the way of Schemathesis: requests generated from
 * the emulator's OpenAPI document alone, each classified by the document — not by the server —
 * as one the contract allows or one it forbids, then sent over HTTP:
 *
 * - a request the contract allows must not be refused as invalid (HTTP 400 with code 3, 415, or
 *   422), unless the refusal names only fields of a rule the operation lists in `x-rules` (what
 *   OpenAPI cannot state: a binding's role must be visible from its group);
 * - a request the contract forbids must be refused (400/413/415/422);
 * - every answer must match the document (test/support/openapi-conformance.ts).
 *
 * Values come from the schemas (patterns through fast-check's stringMatching), often bent out of
 * them; ajv, over the document, is the judge of what the contract allows. Stateful walks follow
 * each create's OpenAPI links to its Get, PATCH and DELETE.
 */
import fc from 'fast-check';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { conformanceOf, type OpenApiConformance } from './openapi-conformance.js';

type Json = Record<string, unknown>;

export interface FuzzRequest {
  operationId: string;
  method: string;
  /** Path with the uid filled in. */
  path: string;
  query: [string, string][];
  /** Absent: no body sent. */
  body?: unknown;
  contentType: string;
}

export interface Operation {
  operationId: string;
  method: string;
  template: string;
  op: Json;
  params: Json[];
  /** The kind its path serves (`x-kind`), and the kind a create's `{uid}` names. */
  kind?: string;
  parentKind?: string;
}

/** Resource uids by kind: what `{uid}` may name so that a request reaches its checks. */
export type UidsByKind = Record<string, string[]>;

export interface Verdict {
  allowed: boolean;
  /** Why the contract forbids it (empty when allowed). */
  reasons: string[];
}

export interface Finding {
  request: FuzzRequest;
  verdict: Verdict;
  status: number;
  answer: string;
  problem: string;
}

const METHODS = ['get', 'post', 'patch', 'delete'] as const;

/** Strings matching each pattern: building one (a long alternation especially) costs far more than drawing from it. */
const patternArbitraries = new Map<string, fc.Arbitrary<string>>();
function patternArbitrary(pattern: string): fc.Arbitrary<string> {
  let arb = patternArbitraries.get(pattern);
  if (!arb) patternArbitraries.set(pattern, (arb = fc.stringMatching(new RegExp(pattern))));
  return arb;
}

/**
 * What judging against one document takes, compiled as it is used: shared by every fuzzer of that
 * document. A body is judged by the document's conformance checker (the same schemas, compiled once).
 */
interface Judges {
  paramAjv: Ajv2020;
  validators: Map<string, ValidateFunction>;
  conformance: OpenApiConformance;
}
const judgesByDoc = new WeakMap<Json, Judges>();
function judgesOf(doc: Json): Judges {
  let judges = judgesByDoc.get(doc);
  if (!judges) {
    judges = {
      paramAjv: new Ajv2020({ strict: false, coerceTypes: 'array', inlineRefs: false }),
      validators: new Map(),
      conformance: conformanceOf(doc),
    };
    judges.paramAjv.addSchema(doc, 'openapi');
    judgesByDoc.set(doc, judges);
  }
  return judges;
}

export class ContractFuzzer {
  readonly operations: Operation[];
  readonly conformance: OpenApiConformance;
  private readonly paramAjv: Ajv2020;
  private readonly validators: Map<string, ValidateFunction>;

  /**
   * Values a body member of this name may take besides its schema's (real role uids for `roleUid`,
   * a time within 30 days for an invite's `expirationTime`): what rules beyond the schema need
   * for a request to make something.
   */
  hints: Record<string, readonly unknown[]> = {};

  constructor(private readonly doc: Json) {
    ({ paramAjv: this.paramAjv, validators: this.validators, conformance: this.conformance } = judgesOf(doc));
    const paths = doc.paths as Record<string, Json>;
    this.operations = Object.entries(paths).flatMap(([template, item]) =>
      METHODS.filter((m) => item[m] !== undefined).map((m) => {
        const op = item[m] as Json;
        const kind = item['x-kind'] as string | undefined;
        return {
          operationId: op.operationId as string,
          method: m.toUpperCase(),
          template,
          op,
          params: [
            ...((item.parameters as Json[] | undefined) ?? []),
            ...((op.parameters as Json[] | undefined) ?? []),
          ],
          ...(kind ? { kind } : {}),
          ...(op['x-parent-kind'] ? { parentKind: op['x-parent-kind'] as string } : {}),
        };
      }),
    );
  }

  // ---- values from schemas -----------------------------------------------------------------

  private resolve(schema: Json): Json {
    let s = schema;
    for (let i = 0; i < 20 && typeof s.$ref === 'string'; i++) {
      s = (s.$ref as string)
        .replace(/^#\//, '')
        .split('/')
        .reduce<unknown>((o, p) => (o as Json)[p.replaceAll('~1', '/').replaceAll('~0', '~')], this.doc) as Json;
    }
    if (Array.isArray(s.allOf) && s.allOf.length === 1 && !s.properties)
      return {
        ...this.resolve(s.allOf[0] as Json),
        ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'allOf')),
      };
    return s;
  }

  /** Values of a schema, inside it as far as its keywords go (ajv judges the cross-field rules). */
  valueOf(schema: Json, depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    if (s.const !== undefined) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
    const branches = (s.oneOf ?? s.anyOf) as Json[] | undefined;
    if (branches && !s.properties) return fc.oneof(...branches.map((b) => this.valueOf(b, depth)));
    const type = Array.isArray(s.type) ? (s.type as string[])[0] : (s.type as string | undefined);
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'string': {
        if (typeof s.pattern === 'string') {
          const max = (s.maxLength as number | undefined) ?? 300;
          return patternArbitrary(s.pattern).filter(
            (v) => v.length <= Math.min(max, 300) && v.length >= ((s.minLength as number | undefined) ?? 0),
          );
        }
        const min = (s.minLength as number | undefined) ?? 0;
        const max = Math.min((s.maxLength as number | undefined) ?? 24, 64);
        return fc.oneof(
          fc.string({ minLength: min, maxLength: max }),
          fc.string({ unit: 'grapheme', minLength: min, maxLength: max }),
        );
      }
      case 'integer': {
        const min = (s.minimum as number | undefined) ?? -10;
        const max = (s.maximum as number | undefined) ?? 1_000;
        return fc.oneof(
          fc.integer({ min: Math.max(min, -1e6), max: Math.min(max, 1e6) }),
          fc.constantFrom(min, Math.min(max, Number.MAX_SAFE_INTEGER)),
        );
      }
      case 'number':
        return fc.double({ noNaN: true, noDefaultInfinity: true });
      case 'boolean':
        return fc.boolean();
      case 'array': {
        if (depth > 3) return fc.constant([]);
        const items = (s.items as Json | undefined) ?? {};
        const min = (s.minItems as number | undefined) ?? 0;
        const max = Math.min((s.maxItems as number | undefined) ?? 3, 4);
        return fc.array(this.valueOf(items, depth + 1), {
          minLength: Math.min(min, max),
          maxLength: max,
          ...(s.uniqueItems ? {} : {}),
        });
      }
      default: {
        if (depth > 4) return fc.constant({});
        const props = (s.properties as Record<string, Json> | undefined) ?? {};
        const required = new Set((s.required as string[] | undefined) ?? []);
        const entries = Object.entries(props).filter(
          ([, p]) => (this.resolve(p).readOnly as boolean | undefined) !== true,
        );
        const member = (name: string, p: Json): fc.Arbitrary<unknown> => {
          const hinted = this.hints[name];
          return hinted && hinted.length > 0
            ? fc.oneof(
                { weight: 3, arbitrary: fc.constantFrom(...hinted) },
                { weight: 1, arbitrary: this.valueOf(p, depth + 1) },
              )
            : this.valueOf(p, depth + 1);
        };
        const fields = entries.map(([name, p]) =>
          required.has(name)
            ? member(name, p).map((v) => [name, v] as const)
            : fc.option(
                member(name, p).map((v) => [name, v] as const),
                { freq: 2, nil: undefined },
              ),
        );
        const extra =
          s.additionalProperties !== undefined && typeof s.additionalProperties === 'object'
            ? [
                fc.option(
                  fc.tuple(
                    patternArbitrary('^[a-z][a-z0-9_]{0,8}$'),
                    this.valueOf(s.additionalProperties as Json, depth + 1),
                  ),
                  { freq: 2, nil: undefined },
                ),
              ]
            : [];
        return fc
          .tuple(...fields, ...extra)
          .map((pairs) => Object.fromEntries(pairs.filter((p): p is readonly [string, unknown] => p !== undefined)));
      }
    }
  }

  // ---- requests ----------------------------------------------------------------------------

  /**
   * A request to one operation: one the document allows as far as the generator can tell, or
   * (`bent`) the same with one thing bent out of it — an unknown parameter, a parameter's value,
   * a body member dropped, mistyped or added, a body that is not JSON, a uid that is none.
   */
  requestOf(o: Operation, uids: UidsByKind, bent: boolean): fc.Arbitrary<FuzzRequest> {
    // Built once per operation and mode: building an arbitrary (a pattern's especially) costs far more than drawing from it.
    const key = `${o.operationId} ${bent}`;
    let arb = this.requestArbs.get(key);
    if (!arb) this.requestArbs.set(key, (arb = this.buildRequestOf(o, uids, bent)));
    return arb;
  }

  private readonly requestArbs = new Map<string, fc.Arbitrary<FuzzRequest>>();

  private buildRequestOf(o: Operation, uids: UidsByKind, bent: boolean): fc.Arbitrary<FuzzRequest> {
    const uidKind = o.method === 'POST' ? o.parentKind : o.kind;
    const known = uidKind ? (uids[uidKind] ?? []) : [];
    const uidArb = o.template.includes('{uid}')
      ? fc.oneof(
          { weight: 8, arbitrary: known.length > 0 ? fc.constantFrom(...known) : patternArbitrary('^[0-9a-f]{40}$') },
          { weight: 1, arbitrary: patternArbitrary('^[0-9a-f]{40}(/[0-9a-f]{16}){0,2}$') },
        )
      : fc.constant('');
    const queryParams = o.params.filter((p) => p.in === 'query' && p.name !== 'page_token' && p.name !== 'update_mask');
    const queryArb = fc
      .tuple(
        ...queryParams.map((p) =>
          fc.option(
            this.valueOf((p.schema as Json | undefined) ?? {}).map((v) => paramValues(p.name as string, v)),
            { freq: 3, nil: undefined },
          ),
        ),
      )
      .map((parts) => parts.flatMap((x) => x ?? []));
    const bodySchema = (
      ((o.op.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json'] as Json | undefined
    )?.schema as Json | undefined;
    const bodyArb = bodySchema ? this.valueOf(bodySchema) : fc.constant(undefined);
    const base = fc.record({ uid: uidArb, query: queryArb, body: bodyArb }).map(
      ({ uid, query, body }): FuzzRequest => ({
        operationId: o.operationId,
        method: o.method,
        path: o.template.replace('{uid}', uid),
        query,
        ...(body !== undefined ? { body } : {}),
        contentType: 'application/json',
      }),
    );
    if (!bent) return base;
    const bends: fc.Arbitrary<(r: FuzzRequest) => FuzzRequest>[] = [
      fc.constant((r: FuzzRequest) => ({ ...r, query: [...r.query, ['bogus', '1'] as [string, string]] })),
      fc.constant((r: FuzzRequest) =>
        o.template.includes('{uid}') ? { ...r, path: o.template.replace('{uid}', 'not-a-uid') } : r,
      ),
    ];
    if (queryParams.length > 0) {
      bends.push(
        fc
          .tuple(
            fc.constantFrom(...queryParams.map((p) => p.name as string)),
            fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('-1', '1.5', 'x', '99999999999', 'a b')),
          )
          .map(([name, value]) => (r: FuzzRequest) => ({
            ...r,
            query: [...r.query.filter(([k]) => k !== name), [name, value] as [string, string]],
          })),
      );
    }
    if (bodySchema) {
      bends.push(fc.constant((r: FuzzRequest) => ({ ...r, contentType: 'text/plain' })));
      bends.push(
        fc.constant((r: FuzzRequest) => ({
          ...r,
          body: isObject(r.body) ? { ...r.body, unexpectedField: 1 } : { unexpectedField: 1 },
        })),
      );
      bends.push(
        fc.tuple(fc.nat(), fc.constantFrom<unknown>(42, 'x', null, true, [], {})).map(([i, v]) => (r: FuzzRequest) => {
          if (!isObject(r.body)) return { ...r, body: v };
          const keys = Object.keys(r.body);
          if (keys.length === 0) return { ...r, body: v };
          const k = keys[i % keys.length]!;
          return {
            ...r,
            body:
              i % 2 === 0
                ? { ...r.body, [k]: v }
                : Object.fromEntries(Object.entries(r.body).filter(([key]) => key !== k)),
          };
        }),
      );
    }
    return fc.tuple(base, fc.oneof(...bends)).map(([r, bend]) => bend(r));
  }

  /** What the document says of a request: allowed, or forbidden and why. */
  judge(o: Operation, r: FuzzRequest): Verdict {
    const reasons: string[] = [];
    const uidParam = o.params.find((p) => p.in === 'path');
    if (uidParam && o.template.includes('{uid}')) {
      const prefix = o.template.slice(0, o.template.indexOf('{uid}'));
      const suffix = o.template.slice(o.template.indexOf('{uid}') + 5);
      const uid = r.path.slice(prefix.length, r.path.length - suffix.length);
      if (!this.paramValid(`${o.operationId}:path`, (uidParam.schema as Json | undefined) ?? {}, uid))
        reasons.push(`path {uid} ${JSON.stringify(uid)}`);
    }
    const declared = new Map(o.params.filter((p) => p.in === 'query').map((p) => [p.name as string, p]));
    const byName = new Map<string, string[]>();
    // An empty value is "not set" (AIP; DESIGN.md §6 rev 4).
    for (const [k, v] of r.query) if (v !== '') byName.set(k, [...(byName.get(k) ?? []), v]);
    for (const [name, values] of byName) {
      const p = declared.get(name);
      if (!p) {
        reasons.push(`query ${name} is not declared`);
        continue;
      }
      const schema = (p.schema as Json | undefined) ?? {};
      const isArray = this.resolve(schema).type === 'array';
      if (!isArray && values.length > 1) reasons.push(`query ${name} given ${values.length} times`);
      else if (!this.paramValid(`${o.operationId}:${name}`, schema, isArray ? values : values[0]!))
        reasons.push(`query ${name}=${JSON.stringify(values.join(','))}`);
    }
    const requestBody = o.op.requestBody as Json | undefined;
    if (requestBody) {
      if (r.body !== undefined && r.contentType !== 'application/json')
        reasons.push(`body sent as ${JSON.stringify(r.contentType)}`);
      if (r.body === undefined && requestBody.required === true) reasons.push('no body');
      else if (r.body !== undefined) {
        const v = this.conformance.validatorAt(
          `paths/${pointer(o.template)}/${o.method.toLowerCase()}/requestBody/content/application~1json/schema`,
        )!;
        if (!v(r.body)) reasons.push(...(v.errors ?? []).slice(0, 3).map((e) => `body${e.instancePath} ${e.message}`));
      }
    }
    return { allowed: reasons.length === 0, reasons };
  }

  private paramValid(key: string, schema: Json, value: unknown): boolean {
    // An integer in a URL is digits, as OpenAPI tools write one (ajv's coercion would read " " as 0).
    if (this.resolve(schema).type === 'integer' && !(typeof value === 'string' && /^-?[0-9]+$/.test(value)))
      return false;
    let v = this.validators.get(key);
    if (!v) this.validators.set(key, (v = this.paramAjv.compile(rewriteRefs(schema) as Json)));
    return v(structuredClone(value)) === true;
  }

  /** The rules the operation lists as enforced in code (`x-rules`): the fields their refusals name. */
  ruleFields(o: Operation): Set<string> {
    return new Set(((o.op['x-rules'] as { field: string }[] | undefined) ?? []).map((r) => r.field));
  }

  /** What is wrong with the server's answer to a request (undefined when nothing). */
  problemWith(o: Operation, r: FuzzRequest, verdict: Verdict, status: number, answer: string): string | undefined {
    const body = safeJson(answer) as
      | { code?: number; details?: { fieldViolations?: { field: string }[] }[] }
      | undefined;
    // No request, allowed or forbidden, may be answered 500: it is a bug in a handler, or an answer
    // the emulator's own check found breaking the contract (issue 47: an answer-breaking emulator
    // must fail the fuzzer, not hide behind "5xx is allowed").
    if (status === 500)
      return `answered 500 (${(body as { message?: string } | undefined)?.message ?? 'an internal error'}); the contract allows no internal error`;
    const invalid = status === 415 || status === 422 || status === 413 || (status === 400 && body?.code === 3);
    if (verdict.allowed && invalid) {
      const fields = (body?.details ?? []).flatMap((d) => d.fieldViolations ?? []).map((f) => f.field);
      const rules = this.ruleFields(o);
      if (fields.length > 0 && fields.every((f) => rules.has(f) || rules.has(f.split('.')[0]!))) return undefined;
      return `allowed by the contract, refused by the server (${status}) on ${[...new Set(fields)].join(', ') || (body as { message?: string } | undefined)?.message || '?'}`;
    }
    // A forbidden request must be refused: any 4xx (a 404 before the body is read is a refusal too), never taken or a 5xx.
    if (!verdict.allowed && (status < 400 || status >= 500)) {
      return `forbidden by the contract (${verdict.reasons.join('; ')}), answered ${status} by the server`;
    }
    const problems = this.conformance.check({
      method: r.method,
      url: urlOf(r),
      requestBody: r.body === undefined ? '' : JSON.stringify(r.body),
      status,
      responseBody: answer,
    });
    return problems.length > 0 ? `the answer breaks the contract: ${problems.join('; ')}` : undefined;
  }
}

/** A schema of the document made to stand alone: its local references point into the document. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Json).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `openapi${v}` : rewriteRefs(v),
      ]),
    );
  }
  return value;
}

/** A parameter's value as query pairs: an array is repeated (form, explode), anything else is one pair. */
function paramValues(name: string, v: unknown): [string, string][] {
  if (Array.isArray(v)) return v.map((x) => [name, typeof x === 'string' ? x : JSON.stringify(x)]);
  return [
    [name, typeof v === 'string' ? v : v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v)],
  ];
}

export function urlOf(r: FuzzRequest): string {
  const q = new URLSearchParams(r.query).toString();
  return `${r.path}${q ? `?${q}` : ''}`;
}

function pointer(s: string): string {
  return s.replaceAll('~', '~0').replaceAll('/', '~1');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Sends one request; the answer's status and text. */
export async function send(
  baseUrl: string,
  token: string,
  r: FuzzRequest,
): Promise<{ status: number; answer: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (r.body !== undefined && r.contentType !== '') headers['content-type'] = r.contentType;
  const res = await fetch(`${baseUrl}${urlOf(r)}`, {
    method: r.method,
    headers,
    ...(r.body !== undefined ? { body: JSON.stringify(r.body) } : {}),
  });
  return { status: res.status, answer: await res.text() };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
