/**
 * The emulator's own contract: schemas/platform-api-v2.openapi.json, an OpenAPI 3.1 document of
 * the API it serves (DESIGN.md §2, §6). Its tables of kinds, paths and fields come from that
 * document, never from the client's kind descriptors, and every request body is validated
 * against the document's schemas with ajv: a client that sends what the API does not define is
 * told so, even when the client's own tables agree with it. The document is served at
 * `GET /openapi.json` for users' own tools (mock servers, client generators).
 */
import { readPackageText } from '../io/read-file.js';
import type { ErrorObject } from 'ajv/dist/2020.js';
import type { ApiKind } from '../model/kinds.js';
import { findPackageFile } from '../io/package-file.js';
import { COMPONENTS, CONTRACT_SHA256, PARAMETERS } from './contract-validators.js';
import type { FieldViolation } from './failures.js';
import { CONTRACT_VALIDATORS_MODULE, contractDigest, OPENAPI_RELATIVE_PATH, parameterKey } from './contract-keys.js';

export { OPENAPI_RELATIVE_PATH };

type Json = Record<string, unknown>;

/** What the emulator knows of one kind, all read from the document. */
export interface KindContract {
  readonly kind: ApiKind;
  /** `GET` lists; `{collection}/{uid}` is one item; `POST {collection}/{parent}` creates. */
  readonly collection: string;
  /** The array of a List envelope. */
  readonly plural: string;
  /** Kind of the resource a create's `{parent}` names. */
  readonly parentKind: ApiKind;
  /** Fields a create body may carry, and those it must. */
  readonly createFields: readonly string[];
  readonly requiredOnCreate: readonly string[];
  /** Fields an update mask may name: the PATCH body's, plus write-only secret paths. */
  readonly updatableFields: readonly string[];
  /** Fields a response carries that a request may echo back but never set. */
  readonly readOnlyFields: readonly string[];
  /** Response members in order, each with what an unset one reads as and its write-only members. */
  readonly response: readonly {
    name: string;
    default?: unknown;
    writeOnly: readonly string[];
    serviceSent: boolean;
    instants: readonly string[];
  }[];
  /** Query parameters a List accepts: paging, ordering, `uidp.*` and the kind's own filters. */
  readonly listParams: readonly string[];
  /** Fields unique among siblings (`name`, `sink`, …), if any. */
  readonly uniqueKey: readonly string[];
  /** Methods on `{collection}/{uid}` (`GET`, `POST` — a child's create under it —, `PATCH`, `DELETE`), for the `Allow` header of a 405. */
  readonly itemMethods: readonly string[];
  readonly canCreate: boolean;
  /** Component names of the create and PATCH bodies, when the kind takes them. */
  readonly createSchema?: string;
  readonly patchSchema?: string;
}

let documentText: string | undefined;

/** The document as served (its JSON text, read once). */
export function openApiText(): string {
  documentText ??= readPackageText(findPackageFile(OPENAPI_RELATIVE_PATH));
  return documentText;
}

let parsed: Json | undefined;
function openApiDocument(): Json {
  parsed ??= JSON.parse(openApiText()) as Json;
  return parsed;
}

function schemas(): Record<string, Json> {
  return (openApiDocument().components as { schemas: Record<string, Json> }).schemas;
}

/** The component a `$ref` names (only local `#/components/schemas/…` references are used). */
function deref(schema: Json): Json {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  return schemas()[ref.replace('#/components/schemas/', '')]!;
}

function componentName(schema: Json): string {
  return String(schema.$ref).replace('#/components/schemas/', '');
}

function propertiesOf(schema: Json | undefined): Record<string, Json> {
  return schema ? ((deref(schema).properties as Record<string, Json> | undefined) ?? {}) : {};
}

function jsonSchemaOf(op: Json | undefined, where: 'request' | 'response'): Json | undefined {
  if (!op) return undefined;
  const content =
    where === 'request'
      ? (op.requestBody as Json | undefined)?.content
      : ((op.responses as Json)['200'] as Json | undefined)?.content;
  return ((content as Json | undefined)?.['application/json'] as Json | undefined)?.schema as Json | undefined;
}

/**
 * Where a response property holds an RFC 3339 time (`RfcTimestamp`): `''` for the property
 * itself, else the names of its members that do. The service answers every time in one form —
 * milliseconds and `Z` (spec: "with milliseconds and Z") — whatever form it was sent in.
 */
function instantMembers(schema: Json): string[] {
  const isInstant = (s: Json | undefined): boolean => typeof s?.$ref === 'string' && s.$ref.endsWith('/RfcTimestamp');
  if (isInstant(schema)) return [''];
  const target = deref(schema.allOf ? ((schema.allOf as Json[])[0] as Json) : schema);
  return Object.entries(propertiesOf(target)).flatMap(([name, s]) => (isInstant(s) ? [name] : []));
}

/** Names of the members of a response property marked `writeOnly` (never returned). */
function writeOnlyMembers(schema: Json): string[] {
  const target = deref(schema.allOf ? ((schema.allOf as Json[])[0] as Json) : schema);
  return Object.entries(propertiesOf(target)).flatMap(([name, s]) => (s.writeOnly === true ? [name] : []));
}

function buildKinds(): Map<ApiKind, KindContract> {
  const paths = openApiDocument().paths as Record<string, Json>;
  const kinds = new Map<ApiKind, KindContract>();
  for (const [path, item] of Object.entries(paths)) {
    const kind = item['x-kind'] as ApiKind | undefined;
    if (kind === undefined) continue;
    // A kind listed per parent (terms: `GET /iam/v2/terms/{org}` lists, `POST` accepts) has only an item path.
    const perParent = path.endsWith('/{uid}') && paths[path.slice(0, -'/{uid}'.length)] === undefined;
    if (path.endsWith('/{uid}') && !perParent) continue;
    const collection = perParent ? path.slice(0, -'/{uid}'.length) : path;
    const one = perParent ? {} : (paths[`${path}/{uid}`] ?? {});
    const listRef = jsonSchemaOf(item.get as Json, 'response')!;
    const listSchema = deref(listRef);
    const plural = Object.keys(propertiesOf(listSchema)).find(
      (k) => !['nextPageToken', 'totalCount', 'skipped'].includes(k),
    )!;
    const resourceRef = perParent
      ? (propertiesOf(listSchema)[plural]!.items as Json)
      : jsonSchemaOf(one.get as Json, 'response')!;
    const resource = deref(resourceRef);
    const createSchema = jsonSchemaOf((perParent ? item.post : one.post) as Json | undefined, 'request');
    const patchSchema = jsonSchemaOf(one.patch as Json | undefined, 'request');
    const createFields = Object.keys(propertiesOf(createSchema));
    const patchFields = Object.keys(propertiesOf(patchSchema));
    const secretPaths = patchSchema ? ((deref(patchSchema)['x-secret-mask-paths'] as string[] | undefined) ?? []) : [];
    const updatableFields = [...patchFields, ...secretPaths];
    const responseProps = propertiesOf(resource);
    const readOnlyFields = [...new Set([...Object.keys(responseProps), ...createFields])].filter(
      (f) => !updatableFields.includes(f),
    );
    kinds.set(kind, {
      kind,
      collection,
      plural,
      parentKind: resource['x-parent-kind'] as ApiKind,
      createFields,
      requiredOnCreate: createSchema ? ((deref(createSchema).required as string[] | undefined) ?? []) : [],
      updatableFields,
      readOnlyFields,
      response: Object.entries(responseProps).map(([name, s]) => ({
        name,
        ...('default' in s ? { default: s.default } : {}),
        writeOnly: writeOnlyMembers(s),
        serviceSent: s['x-service-sent'] === true,
        instants: instantMembers(s),
      })),
      listParams: (((item.get as Json).parameters as Json[] | undefined) ?? []).map((p) => p.name as string),
      uniqueKey: (resource['x-unique-key'] as string[] | undefined) ?? [],
      itemMethods: ['get', 'post', 'patch', 'delete']
        .filter((m) => (perParent ? item : one)[m] !== undefined)
        .map((m) => m.toUpperCase()),
      canCreate: (perParent ? item.post : one.post) !== undefined,
      ...(createSchema ? { createSchema: componentName(createSchema) } : {}),
      ...(patchSchema ? { patchSchema: componentName(patchSchema) } : {}),
    });
  }
  return kinds;
}

let kindTable: Map<ApiKind, KindContract> | undefined;

/** The contract of one kind the document serves (terms and sub-resources have paths of their own). */
export function kindContract(kind: ApiKind): KindContract {
  kindTable ??= buildKinds();
  const k = kindTable.get(kind);
  if (!k) throw new Error(`${OPENAPI_RELATIVE_PATH} serves no kind ${kind}`);
  return k;
}

/** Every kind with a collection, in the document's order. */
export function contractKinds(): KindContract[] {
  kindTable ??= buildKinds();
  return [...kindTable.values()];
}

/** A component schema's enum (`Capabilities` items: the capabilities a custom role may hold). */
/** The service principals an identity may stand for (the contract's Identity.servicePrincipal enum). */
export function identityServicePrincipals(): readonly string[] {
  const member = (schemas().Identity!.properties as Record<string, Json>).servicePrincipal!;
  return (member.enum as string[]) ?? [];
}

export function capabilitiesOfContract(): readonly string[] {
  return ((schemas().Capabilities!.items as Json).enum as string[]) ?? [];
}

// ---- validation ------------------------------------------------------------------------------

/** A validator ajv generated from the document (src/emulator/contract-validators.js). */
export type ContractValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** The generated validators: each component schema by name, each declared parameter by key. */
export interface ContractValidators {
  components: Readonly<Record<string, ContractValidator | undefined>>;
  parameters: Readonly<Record<string, ContractValidator | undefined>>;
}

/**
 * The generated validators, when they were made from the document `text`; else an error naming
 * the command that makes them anew: made from another text (the contract edited, `npm run
 * generate` not run) they would check a contract nobody reads.
 */
export function validatorsFor(text: string): ContractValidators {
  if (contractDigest(text) !== CONTRACT_SHA256)
    throw new Error(
      `${CONTRACT_VALIDATORS_MODULE} was generated from another ${OPENAPI_RELATIVE_PATH}; regenerate: npm run generate`,
    );
  return { components: COMPONENTS, parameters: PARAMETERS };
}

let served: ContractValidators | undefined;
/** The generated validators of the document the emulator serves (checked once). */
const validators = (): ContractValidators => (served ??= validatorsFor(openApiText()));

/** The validator of a component schema of the document (precompiled: ajv's compiler is not loaded). */
export function componentValidator(name: string): ContractValidator {
  const v = validators().components[name];
  if (!v) throw new Error(`${OPENAPI_RELATIVE_PATH} has no schema ${name}`);
  return v;
}

/** One field violation per failing field, named by its path (`oidc.issuer`), in the API's words. */
function violationsOf(errors: readonly ErrorObject[]): FieldViolation[] {
  const out = new Map<string, string>();
  for (const e of errors) {
    const path = e.instancePath.split('/').slice(1).join('.');
    let field = path;
    let description = e.message ?? 'is not valid';
    if (e.keyword === 'required') {
      field = path === '' ? String(e.params.missingProperty) : `${path}.${String(e.params.missingProperty)}`;
      description = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      field = path === '' ? String(e.params.additionalProperty) : `${path}.${String(e.params.additionalProperty)}`;
      description = 'is not a field of this resource';
    } else if (e.keyword === 'pattern') {
      description = `${path.split('.').pop()} must match "${String(e.params.pattern)}"`;
    } else if (e.keyword === 'not' && Array.isArray((e.schema as { required?: unknown } | undefined)?.required)) {
      // A pair of which an object holds at most one (`issuer` or `issuerPattern`).
      const pair = (e.schema as { required: unknown[] }).required.map(String);
      description = `holds ${pair.join(' and ')}; expected at most one of them`;
    }
    // A rule over the whole body (at most one relationship: a `not`) names the body and the rule.
    if (field === '' && e.keyword !== 'required' && e.keyword !== 'additionalProperties') {
      field = '(body)';
      const rule = (e.parentSchema as { description?: unknown } | undefined)?.description;
      description = typeof rule === 'string' ? `breaks the rule: ${rule}` : description;
    }
    // anyOf (a nullable block) repeats each branch's error: the first says enough.
    if (field !== '' && !out.has(field)) out.set(field, description);
  }
  return [...out].map(([field, description]) => ({ field, description }));
}

/** Field violations of a request body against the document's create or PATCH schema of `kind`. */
export function bodyViolations(kind: ApiKind, request: 'create' | 'patch', body: unknown): FieldViolation[] {
  const contract = kindContract(kind);
  const name = request === 'create' ? contract.createSchema : contract.patchSchema;
  if (name === undefined) return [];
  const validate = componentValidator(name);
  return validate(body) ? [] : violationsOf(validate.errors ?? []);
}

/**
 * Field violations of a request's `{uid}` and query parameters against the operation the
 * document declares at `template` for `method` (DESIGN.md §6 rev 4: the contract is the server's
 * rule book). Integers arrive as text and are read as integers; an array parameter takes every
 * value given. Parameters the operation does not declare are left to the caller, which names
 * the ones it takes.
 */
export function parameterViolations(
  template: string,
  method: string,
  uid: string | undefined,
  query: URLSearchParams,
): FieldViolation[] {
  const item = (openApiDocument().paths as Record<string, Json>)[template];
  const op = item?.[method.toLowerCase()] as Json | undefined;
  if (!item || !op) return [];
  const params = [...((item.parameters as Json[] | undefined) ?? []), ...((op.parameters as Json[] | undefined) ?? [])];
  const out: FieldViolation[] = [];
  for (const p of params) {
    const name = p.name as string;
    const values = p.in === 'path' ? (uid === undefined ? [] : [uid]) : query.getAll(name);
    if (values.length === 0) continue;
    const schema = (p.schema as Json | undefined) ?? {};
    const key = parameterKey(template, method, p.in as string, name);
    const validate = validators().parameters[key];
    if (!validate) throw new Error(`${CONTRACT_VALIDATORS_MODULE} has no validator of ${key}`);
    const isArray = (schema as { type?: unknown }).type === 'array';
    // An integer in a URL is digits (ajv would read " " as 0): anything else is not one.
    const notDigits = (schema as { type?: unknown }).type === 'integer' && !/^-?[0-9]+$/.test(values[0]!);
    if (notDigits || !validate(isArray ? [...values] : values[0])) {
      const field = p.in === 'path' ? 'uid' : name;
      out.push({ field, description: describeParameterRule(schema) });
    }
  }
  return out;
}

/** What a parameter must be, in words, from its schema. */
function describeParameterRule(schema: Json): string {
  if (schema.$ref === '#/components/schemas/RootUid')
    return 'must be the uid of an org (40 lowercase hex): terms are accepted by a root group (an org) only';
  if (schema.$ref === '#/components/schemas/Uid')
    return 'must be a resource uid (40 lowercase hex, then /<16 hex> per level)';
  if (schema.type === 'integer')
    return `must be an integer from ${String(schema.minimum ?? '-∞')} to ${String(schema.maximum ?? '∞')}`;
  if (typeof schema.pattern === 'string') return `must match "${schema.pattern}"`;
  return `must be ${JSON.stringify(schema)}`;
}

/**
 * The component the document names as the 200 answer of `method` at `template` (undefined: an
 * answer without a body, or no such operation): each answer is held to its own operation's
 * schema (a create's may say more than a read's: an invite's code).
 */
export function answerSchemaName(template: string, method: string): string | undefined {
  const op = (openApiDocument().paths as Record<string, Json>)[template]?.[method.toLowerCase()] as Json | undefined;
  const ok = (op?.responses as Record<string, Json> | undefined)?.['200'];
  const schema = (ok?.content as Record<string, Json> | undefined)?.['application/json']?.schema as Json | undefined;
  const ref = schema?.$ref;
  return typeof ref === 'string' && ref.startsWith(COMPONENT_PREFIX) ? ref.slice(COMPONENT_PREFIX.length) : undefined;
}

const COMPONENT_PREFIX = '#/components/schemas/';

/**
 * What is wrong with an answer the emulator is about to give, by the contract's schema of it
 * (`[]` when it conforms). For tests and for users who run the emulator to check a client:
 * an emulator that answers outside its own contract is a bug to surface, not to serve.
 */
export function answerViolations(schema: string, body: unknown): string[] {
  const validate = componentValidator(schema);
  if (validate(body)) return [];
  return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is not valid'}`);
}
