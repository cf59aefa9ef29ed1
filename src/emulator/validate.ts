/**
 * Request-body rules per kind (DESIGN.md §2): which fields exist, which are writable, what
 * each must look like, and the PATCH mask rules of the spec. Pure: no store, no clock.
 * The seed loader uses the same checks, so a seed file can hold only what the API accepts.
 */
import { createHash } from 'node:crypto';
import { isPlainObject } from './values.js';
import type { ApiKind, Kind } from '../model/kinds.js';
import { bodyViolations, capabilitiesOfContract, componentValidator, kindContract } from './contract.js';
import { invalidArgument, type FieldViolation } from './failures.js';
import {
  isRelationship,
  relationshipViolation,
  RELATIONSHIPS as RELATIONSHIP_FIELDS,
  sentRelationshipViolations,
  shortServicePrincipal as normalizeServicePrincipal,
  type Relationship as RelationshipField,
} from './relationships.js';
import type { ResourceData } from './store.js';

/** A terms document id, as the service accepts one: no control characters, no unbounded strings (an acceptance is permanent). */
export const TERMS_DOCUMENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Names of groups, identities, repos, roles, identity providers and account associations (DESIGN.md §2). */
const NAME_PATTERN_SOURCE = '^[a-z0-9 ._-]{1,}$';
const NAME_PATTERN = new RegExp(NAME_PATTERN_SOURCE);
/** Docker-style tag names. */
const TAG_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
const MAX_TEXT = 4096;
const MAX_README = 256 * 1024;

/** Checks one field's value; returns a description of what is wrong, or null. */
function checkField(kind: ApiKind, field: string, value: unknown): string | null {
  switch (field) {
    case 'name':
      if (kind === 'tag')
        return typeof value === 'string' && TAG_NAME_PATTERN.test(value)
          ? null
          : `is required and must match ${TAG_NAME_PATTERN.source}`;
      return typeof value === 'string' && NAME_PATTERN.test(value) ? null : `name must match "${NAME_PATTERN_SOURCE}"`;
    case 'description':
      if (typeof value !== 'string') return 'must be a string';
      return value.length > MAX_TEXT ? `must be at most ${MAX_TEXT} characters` : null;
    case 'claimMatch':
    case 'awsIdentity':
    case 'staticKeys':
    case 'servicePrincipal':
      return checkRelationship(field, value);
    case 'capabilities':
      return checkCapabilities(value);
    case 'identityUid':
    case 'roleUid':
      return typeof value === 'string' && value !== '' ? null : 'is required and must be a resource uid';
    case 'digest':
      return typeof value === 'string' && DIGEST_PATTERN.test(value)
        ? null
        : 'is required and must look like sha256:<64 lowercase hex>';
    case 'deprecated':
      return typeof value === 'boolean' ? null : 'must be a boolean';
    case 'sink':
      return checkHttpsUrl(value, 'is required and must be an https:// URL');
    case 'amazon':
    case 'google':
    case 'azure':
    case 'github':
    case 'chainguard':
      return checkAccountBlock(field, value);
    case 'externalGroupId':
      if (typeof value !== 'string' || value.trim() === '')
        return 'externalGroupId must be the name or id of a group of the identity provider';
      // A key is one line of printable text (DESIGN.md §8 rev 4): no newline, tab or other control.
      return /[\u0000-\u001f\u007f-\u009f]/.test(value)
        ? 'externalGroupId must not hold a control character (a newline, a tab, …)'
        : null;
    case 'scope':
      return typeof value === 'string' && /^[0-9a-f]{40}$/.test(value)
        ? null
        : 'scope must be the uid of the org (its root group)';
    case 'defaultRole':
      return typeof value === 'string' && value !== '' ? null : 'defaultRole must be the uid of a role';
    case 'oidc':
      return checkOidc(value);
    case 'syncConfig':
      // The schema allows a PATCH of some leaves; whole, as stored, it has both of these.
      if (!isPlainObject(value) || typeof value.source !== 'string' || typeof value.expiration !== 'string')
        return 'syncConfig needs source (a catalog repo uid) and expiration';
      return typeof value.apkoOverlay === 'string' && value.apkoOverlay !== '' && !isJsonObjectText(value.apkoOverlay)
        ? 'syncConfig.apkoOverlay must be JSON text of an object (an apko configuration), or "" for none'
        : null;
    case 'content':
      if (typeof value !== 'string') return 'must be a string';
      return value.length > MAX_README ? `must be at most ${MAX_README} characters` : null;
    default: {
      // A field the contract declares and no rule here knows: its schema there is the whole check
      // (null is no value of any such schema: a field is reset by leaving it out of the body).
      if (value === null) return 'must not be null; leave it out of the body to reset it';
      const contract = kindContract(kind);
      return contract.createFields.includes(field) || contract.updatableFields.includes(field)
        ? null
        : 'is not a field of this resource';
    }
  }
}

function checkHttpsUrl(value: unknown, message: string): string | null {
  // The contract's HttpsUrl: ASCII, a host, no spaces or controls.
  return typeof value === 'string' && componentValidator('HttpsUrl')(value) === true ? null : message;
}

/** An identity relationship: the rules of identity-relationships.ts, as the API's field violation. */
function checkRelationship(field: RelationshipField, value: unknown): string | null {
  return relationshipViolation(field, value);
}

/** The blocks of an account association, each an object of the shape DESIGN.md §2 gives. */
function checkAccountBlock(field: string, value: unknown): string | null {
  if (value === null) return null; // clears it
  if (typeof value !== 'object' || Array.isArray(value)) return `${field} must be an object`;
  const o = value as Record<string, unknown>;
  const str = (k: string) => typeof o[k] === 'string' && o[k] !== '';
  const strMap = (k: string) =>
    o[k] === undefined ||
    (typeof o[k] === 'object' &&
      o[k] !== null &&
      !Array.isArray(o[k]) &&
      Object.values(o[k] as object).every((v) => typeof v === 'string'));
  switch (field) {
    case 'amazon':
      return typeof o.account === 'string' && /^\d{12}$/.test(o.account)
        ? null
        : 'amazon.account must be a 12-digit AWS account id';
    case 'google':
      return str('projectId') || str('projectNumber') ? null : 'google needs projectId or projectNumber';
    case 'azure':
      return str('tenantId') && strMap('clientIds') ? null : 'azure needs tenantId (and clientIds as a map of strings)';
    case 'github':
      return Array.isArray(o.installations) &&
        o.installations.every(
          (i) =>
            typeof i === 'object' && i !== null && typeof (i as Record<string, unknown>).installationId === 'string',
        )
        ? null
        : 'github.installations must be a list of {installationId, name}';
    default:
      return strMap('serviceBindings') ? null : 'chainguard.serviceBindings must be a map of strings';
  }
}

/**
 * An identity provider's OIDC settings, beyond their shape (the contract's `Oidc` schema says
 * which members exist and their types): an https issuer, a client id; the client secret is
 * checked where it is required (create).
 */
function checkOidc(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'oidc must be an object {issuer, clientId, clientSecret, …}';
  const o = value as Record<string, unknown>;
  if (checkHttpsUrl(o.issuer, 'x') !== null) return 'oidc.issuer must be an https:// URL';
  if (typeof o.clientId !== 'string' || o.clientId === '') return 'oidc.clientId must be a non-empty string';
  if (o.clientSecret !== undefined && (typeof o.clientSecret !== 'string' || o.clientSecret === ''))
    return 'oidc.clientSecret must be a non-empty string';
  return null;
}

function checkCapabilities(value: unknown): string | null {
  if (!Array.isArray(value) || value.length === 0) return 'is required: a non-empty list of capabilities';
  const capabilities = capabilitiesOfContract();
  const known = new Set<string>(capabilities);
  const bad = value.filter((c) => typeof c !== 'string' || !known.has(c));
  if (bad.length > 0)
    return `unknown capability ${bad.map((c) => JSON.stringify(c)).join(', ')}; must be one of the service's ${capabilities.length} capabilities (GET /openapi.json, Capabilities)`;
  if (new Set(value).size !== value.length) return 'lists a capability more than once';
  return null;
}

/** Turns a validated body value into stored data (copies arrays/objects). */
function toData(field: string, value: unknown): Partial<ResourceData> {
  if (isRelationship(field)) {
    // One relationship at a time: setting one clears the others (a oneof).
    const cleared = Object.fromEntries(RELATIONSHIP_FIELDS.map((f) => [f, undefined])) as Partial<ResourceData>;
    if (value === null || value === undefined) return { [field]: undefined };
    const stored = field === 'servicePrincipal' ? normalizeServicePrincipal(value) : JSON.parse(JSON.stringify(value));
    return { ...cleared, [field]: stored } as Partial<ResourceData>;
  }
  switch (field) {
    case 'capabilities':
      return { capabilities: value === undefined ? undefined : [...(value as string[])] };
    case 'catalogTier':
      // Accepted short or in full; stored in full; the zero value unsets it (DESIGN.md §2 rev 6).
      return { catalogTier: fullCatalogTier(value) };
    case 'oidc': {
      // Only a digest of the secret is kept (DESIGN.md §3: no output, plan or emulator state holds one).
      const oidc = { ...(value as Record<string, unknown>) };
      if (typeof oidc.clientSecret === 'string') oidc.clientSecret = sealSecret(oidc.clientSecret);
      return { oidc } as Partial<ResourceData>;
    }
    default:
      return { [field]: value } as Partial<ResourceData>;
  }
}

const CATALOG_TIER_PREFIX = 'CATALOG_TIER_';

/** `FIPS` and `CATALOG_TIER_FIPS` are one tier, stored in full; `CATALOG_TIER_UNSPECIFIED` is none. */
function fullCatalogTier(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '' || value === `${CATALOG_TIER_PREFIX}UNSPECIFIED`) return undefined;
  return value.startsWith(CATALOG_TIER_PREFIX) ? value : `${CATALOG_TIER_PREFIX}${value}`;
}

/** What the emulator keeps of a write-only secret: `sha256:<hex>`, never the value. */
export function sealSecret(secret: string): string {
  return /^sha256:[0-9a-f]{64}$/.test(secret) ? secret : `sha256:${createHash('sha256').update(secret).digest('hex')}`;
}

/** The value a field takes when a full replacement (`updateMask=*`) leaves it out. */
/** What a field named by a mask and absent from the body becomes (AIP-134): its default in the contract's answer, else unset. */
function defaultValue(kind: ApiKind | 'readme', field: string): unknown {
  if (field === 'content') return '';
  const member = kind === 'readme' ? undefined : kindContract(kind).response.find((m) => m.name === field);
  return member?.default;
}

/** A field a create must have: a mask that names it must send it (it has no unset state). */
function requiredField(kind: ApiKind | 'readme', field: string): boolean {
  return kind === 'readme' ? field === 'content' : kindContract(kind).requiredOnCreate.includes(field);
}

function requireObject(body: unknown): Record<string, unknown> {
  // An empty body is an empty object: its fields are what is missing (spec, Errors rule 1: an
  // identity created with an empty body is a violation on `name`, quoting its pattern).
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw invalidArgument([{ field: '(body)', description: 'must be a JSON object' }]);
  return body as Record<string, unknown>;
}

function unknownFieldViolations(body: Record<string, unknown>, known: ReadonlySet<string>): FieldViolation[] {
  return Object.keys(body)
    .filter((k) => !known.has(k))
    .map((k) => ({
      field: k,
      description: `is not a field of this resource (known: ${[...known].sort().join(', ')})`,
    }));
}

/**
 * Validates a create body for `kind`; returns the stored data. Throws code 3 naming every
 * bad field at once (an empty identity body names `name` and its pattern).
 */
export function validateCreate(kind: Kind, rawBody: unknown): ResourceData {
  const body = requireObject(rawBody);
  const contract = kindContract(kind);
  const allowed = new Set(contract.createFields);
  const violations = unknownFieldViolations(body, allowed);
  for (const f of contract.requiredOnCreate) {
    if (body[f] === undefined)
      violations.push({ field: f, description: checkField(kind, f, undefined) ?? 'is required' });
  }
  const relationships = RELATIONSHIP_FIELDS.filter((f) => allowed.has(f) && body[f] !== undefined && body[f] !== null);
  if (relationships.length > 1) {
    violations.push({
      field: relationships[1]!,
      description: `an identity has exactly one of ${RELATIONSHIP_FIELDS.join(', ')}; got ${relationships.join(' and ')}`,
    });
  }
  let data: ResourceData = {};
  for (const [f, v] of Object.entries(body)) {
    if (!allowed.has(f)) continue;
    if (v === undefined) continue;
    const problem = checkField(kind, f, v);
    if (problem) violations.push({ field: f, description: problem });
    else data = { ...data, ...toData(f, v) };
  }
  if (
    kind === 'identityProvider' &&
    typeof body.oidc === 'object' &&
    body.oidc !== null &&
    !(body.oidc as Record<string, unknown>).clientSecret
  ) {
    violations.push({
      field: 'oidc.clientSecret',
      description: 'oidc.clientSecret is required when an identity provider is created',
    });
  }
  addContractViolations(violations, bodyViolations(kind, 'create', body));
  if (violations.length > 0) throw invalidArgument(violations);
  return data;
}

/**
 * Adds what the contract's schema finds wrong to what the rules here found: a field already
 * named keeps the message in the service's words, any other gets the schema's.
 */
function addContractViolations(violations: FieldViolation[], fromContract: readonly FieldViolation[]): void {
  const named = new Set(violations.map((v) => v.field.split('.')[0]));
  for (const v of fromContract) if (!named.has(v.field.split('.')[0])) violations.push(v);
}

/** A field a PATCH may change, for the readme sub-resource too. */
export type PatchTarget = Kind | 'readme';

const README_FIELDS = { updatable: ['content'], readOnly: ['uid'] } as const;

/**
 * Applies the spec's PATCH rules: no mask → the fields present in the body; `a,b` → exactly
 * those (other body fields ignored); `*` → full replacement (absent fields reset). Unknown body
 * fields, unknown or read-only mask fields, and read-only body fields without a mask are code 3.
 * `rawBody` is what is applied ({@link expandNestedMask}'s whole fields); `sent`, the body as the
 * client sent it, is what the contract checks, every member of it, whatever the mask names
 * (DESIGN.md §6 rev 4: a body the contract forbids is refused, so a client sending one learns it).
 * Returns the change to store (undefined values clear a field).
 */
export function validatePatch(
  target: PatchTarget,
  rawBody: unknown,
  updateMask: string | undefined,
  sent: unknown = rawBody,
): Partial<ResourceData> & { content?: string; clientSecret?: string } {
  const body = requireObject(rawBody);
  const sentBody = requireObject(sent);
  const contract = target === 'readme' ? undefined : kindContract(target);
  const updatable: readonly string[] = contract ? contract.updatableFields : README_FIELDS.updatable;
  const readOnly: readonly string[] = contract ? contract.readOnlyFields : README_FIELDS.readOnly;
  const kindForChecks: ApiKind = target === 'readme' ? 'repo' : target;
  const known = new Set([...updatable, ...readOnly, ...(contract ? contract.createFields : [])]);
  const violations = unknownFieldViolations(body, known);
  const describeNonUpdatable = (f: string): string =>
    known.has(f)
      ? `is read-only and cannot be changed (updatable: ${updatable.join(', ')})`
      : `is not a field of this resource (updatable: ${updatable.join(', ')})`;

  let fields: string[];
  let replace = false;
  if (updateMask === undefined) {
    fields = Object.keys(body).filter((k) => known.has(k));
    for (const f of fields)
      if (!updatable.includes(f)) violations.push({ field: f, description: describeNonUpdatable(f) });
    fields = fields.filter((f) => updatable.includes(f));
  } else {
    const parts = updateMask
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (parts.length === 0)
      violations.push({ field: 'updateMask', description: 'must name at least one field, or be *' });
    if (parts.includes('*')) {
      if (parts.length > 1) violations.push({ field: 'updateMask', description: '* must be the only entry' });
      replace = true;
      fields = [...updatable];
    } else {
      fields = [];
      for (const p of parts) {
        if (updatable.includes(p)) fields.push(p);
        else violations.push({ field: `updateMask.${p}`, description: describeNonUpdatable(p) });
      }
    }
  }
  let change: Partial<ResourceData> & { content?: string; clientSecret?: string } = {};
  for (const f of fields) {
    if (f === 'oidc.clientSecret') {
      // Write-only: set only when the mask names it (the rotation of a secret).
      const secret = (body.oidc as Record<string, unknown> | undefined)?.clientSecret;
      if (typeof secret !== 'string' || secret === '')
        violations.push({ field: f, description: 'oidc.clientSecret must be a non-empty string' });
      else change = { ...change, clientSecret: sealSecret(secret) };
      continue;
    }
    let v = body[f];
    if (v === undefined && (replace || updateMask !== undefined)) v = defaultValue(target, f);
    if (v === undefined && requiredField(target, f)) {
      violations.push({ field: f, description: checkField(kindForChecks, f, undefined) ?? 'is required' });
      continue;
    }
    if (v === undefined) {
      // An optional field named and not sent is cleared (AIP-134), like a relationship.
      change = { ...change, [f]: undefined };
      continue;
    }
    const problem = v === undefined ? null : checkField(kindForChecks, f, v);
    if (problem) violations.push({ field: f, description: problem });
    else change = { ...change, ...toData(f, v) };
  }
  const setRelationships = fields.filter((f) => isRelationship(f) && body[f] !== undefined && body[f] !== null);
  if (setRelationships.length > 1) {
    violations.push({
      field: 'updateMask',
      description: `names ${setRelationships.join(' and ')}; an identity has exactly one relationship, so a PATCH sets one (and clears the others)`,
    });
  }
  if (contract) {
    // Every member of the body as sent, as the contract's PATCH schema says it may be — the ones
    // the mask leaves out too, and all of a part whose mask names one leaf (a body the contract
    // forbids is refused whatever the mask). A null the rules above read as a reset is theirs.
    const set: Record<string, unknown> = {};
    for (const f of Object.keys(sentBody))
      if (updatable.includes(f) && sentBody[f] !== undefined && (sentBody[f] !== null || !fields.includes(f)))
        set[f] = sentBody[f];
    const ruled = new Set(violations.map((v) => v.field.split('.')[0]));
    addContractViolations(violations, bodyViolations(target as Kind, 'patch', set));
    for (const v of sentRelationshipViolations(sentBody, body, fields)) if (!ruled.has(v.field)) violations.push(v);
  }
  if (violations.length > 0) throw invalidArgument(violations);
  return change;
}

/**
 * Field masks name fields by path, nested ones included (DESIGN.md §2): `oidc.clientId`,
 * `claimMatch.subject`, `google.projectId` change only that leaf. Rewrites such a mask and body
 * into the whole-field form {@link validatePatch} checks: the field as stored, with each named
 * leaf taken from the body (or removed when the body leaves it out). A path whose first segment
 * is not an updatable field is left as it is, for validatePatch to refuse.
 */
export function expandNestedMask(
  kind: Kind,
  updateMask: string | undefined,
  rawBody: unknown,
  current: ResourceData,
): { updateMask: string | undefined; body: unknown } {
  if (updateMask === undefined || !updateMask.includes('.') || !isPlainObject(rawBody))
    return { updateMask, body: rawBody };
  const updatable: readonly string[] = kindContract(kind).updatableFields;
  const entries = updateMask
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const parts: string[] = [];
  const expanded = new Map<string, Record<string, unknown>>();
  for (const part of entries) {
    const dot = part.indexOf('.');
    const top = part.slice(0, dot);
    // A path inside a field the mask also names whole (`claimMatch,claimMatch.subject`) is part
    // of it: the field is changed whole, as sent, as the spec's rule says of a listed field.
    if (dot >= 0 && !updatable.includes(part) && updatable.includes(top) && entries.includes(top)) continue;
    if (dot < 0 || updatable.includes(part) || !updatable.includes(top)) {
      if (!parts.includes(part)) parts.push(part);
      continue;
    }
    // A parent that is sent but is no object (`"google": []`) is checked as sent, whole: refused.
    const sent = rawBody[top];
    if (sent !== undefined && sent !== null && !isPlainObject(sent)) {
      if (!parts.includes(top)) parts.push(top);
      continue;
    }
    let value = expanded.get(top);
    if (value === undefined) {
      const stored = (current as Record<string, unknown>)[top];
      value = isPlainObject(stored) ? structuredClone(stored) : {};
      delete value.clientSecret; // write-only: never copied back from the store
      expanded.set(top, value);
      if (!parts.includes(top)) parts.push(top);
    }
    const path = part.slice(dot + 1).split('.');
    let from: unknown = rawBody[top];
    for (const segment of path) from = isPlainObject(from) ? from[segment] : undefined;
    let holder = value;
    for (const segment of path.slice(0, -1)) {
      if (!isPlainObject(holder[segment])) holder[segment] = {};
      holder = holder[segment] as Record<string, unknown>;
    }
    const leaf = path[path.length - 1]!;
    if (from === undefined) delete holder[leaf];
    else holder[leaf] = from;
  }
  const body: Record<string, unknown> = { ...rawBody };
  for (const [top, value] of expanded) {
    // A secret sent beside (`oidc.clientSecret` in the same mask) stays where validatePatch reads it.
    const given = isPlainObject(rawBody[top]) ? (rawBody[top] as Record<string, unknown>).clientSecret : undefined;
    body[top] = given === undefined ? value : { ...value, clientSecret: given };
  }
  return { updateMask: parts.join(','), body };
}

/** Seeds may also set what only the service sets (a tag's `deprecated`). */
export function checkSeedField(kind: ApiKind, field: string, value: unknown): string | null {
  return checkField(kind, field, value);
}

/** Text that parses as a JSON object (an apko overlay). */
function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}
