/**
 * What one plan step sends to the API (DESIGN.md §2, §4). The scheduler in index.ts decides
 * when a step runs; this file decides which requests it makes, and nothing else.
 */
import type { ApiClient, ApiObject } from '../api/types.js';
import { ApiError } from '../api/errors.js';
import { findCreated } from '../api/lost-create.js';
import { descriptorOf, INVITE_KIND, KIND_INFO, subResourceFields } from '../model/kinds.js';
import { UserError } from '../model/errors.js';
import type { CreateStep, DeleteStep, PlanStep, UidReference, UpdateStep } from '../model/plan.js';
import { setAtPath } from '../model/field-path.js';
import { setSecretAt, type SecretReader } from './secrets.js';
import { answerDifferences, type AnswerDifference } from './answer-check.js';

/** A step names a uid that is neither in the plan nor produced by an earlier step. */
export class UnresolvedUidError extends UserError {
  constructor(message: string) {
    super('APPLY_UNRESOLVED_UID', message);
  }
}

/** A plan creates invites, but nothing keeps their codes (`apply --invite-codes FILE`). */
export class InviteCodesNeededError extends UserError {
  constructor(readonly addresses: readonly string[]) {
    super(
      'APPLY_INVITE_CODES_NEEDED',
      `the plan creates ${addresses.length} invite${addresses.length === 1 ? '' : 's'} (${addresses.slice(0, 5).join(', ')}${addresses.length > 5 ? ', …' : ''}) but names no file for their codes; apply with --invite-codes FILE (a code nobody keeps is a dead invite). Nothing was changed.`,
    );
  }
}

/** What `--invite-codes` keeps of a created invite, one JSON line each (DESIGN.md §4). */
export interface InviteCodeRecord {
  /** The group's address (`org`, `group:engineering`). */
  group: string;
  email?: string;
  /** The role as the manifests name it from the group. */
  role: string;
  expirationTime: string;
  /** The secret that admits its holder. */
  code: string;
}

/** Keeps a created invite's code (`apply --invite-codes`); a promise it returns is awaited, and its failure deletes the invite again. */
export type KeepInviteCode = (record: InviteCodeRecord) => unknown;

/** Uids of resources created so far in this apply, by address. */
export type CreatedUids = ReadonlyMap<string, string>;

/** What one step came to: the uid of the resource it acted on, and where the service's answer holds otherwise than written. */
export interface StepOutcome {
  /** The new uid for a create. */
  uid: string;
  /** Paths the step wrote that the answer to its create or PATCH holds otherwise (answer-check.ts); empty when none. */
  differences: AnswerDifference[];
}

/**
 * Runs one step and returns what it came to (the uid of the resource it acted on, and how the
 * service's answer differs from what it wrote). Throws the API's error (ApiError) when the step
 * fails; retries of transient errors and the exactly-once guarantee of create live in the
 * client, so this is called once per step.
 */
export async function executeStep(
  step: PlanStep,
  client: ApiClient,
  created: CreatedUids,
  readSecret: SecretReader,
  onInviteCode?: KeepInviteCode,
): Promise<StepOutcome> {
  switch (step.action) {
    case 'create':
      return createResource(step, client, created, readSecret, onInviteCode);
    case 'update':
      return updateResource(step, client, created, readSecret);
    case 'delete':
      return { uid: await deleteResource(step, client), differences: [] };
  }
}

/** Sets each secret the step sends into the body, read now (never kept in the plan). */
function addSecrets(
  step: CreateStep | UpdateStep,
  body: Record<string, unknown>,
  readSecret: SecretReader,
  only?: readonly string[],
): void {
  for (const [path, ref] of Object.entries(step.secrets ?? {})) {
    if (only === undefined || only.includes(path)) setSecretAt(body, path, readSecret(ref));
  }
}

async function createResource(
  step: CreateStep,
  client: ApiClient,
  created: CreatedUids,
  readSecret: SecretReader,
  onInviteCode?: KeepInviteCode,
): Promise<StepOutcome> {
  const parentUid = step.parent === null ? null : resolveParentUid(step, created);
  const after = step.after;
  const descriptor = descriptorOf(step.kind);
  const body: Record<string, unknown> = descriptor.createBody ? descriptor.createBody(after) : {};
  for (const field of KIND_INFO[step.kind].createFields) {
    if (after[field] !== undefined) setAtPath(body, field, after[field]);
  }
  const refs = resolveRefs(step, created, KIND_INFO[step.kind].createFields);
  Object.assign(body, refs);
  addSecrets(step, body, readSecret);
  let resource = await createOrRevokeInvite(step, client, parentUid, body);
  if (step.kind === INVITE_KIND) {
    // An invite's code is in the create's answer only. A create whose answer was lost and that
    // the client then found by listing (lost-create recovery) has none: that invite nobody can
    // use is deleted and made again, once, so that its code is kept. When the second answer has
    // no code either, that one is deleted too: no invite is left that nobody can open, and the
    // next apply invites them anew (a partial apply leaves what the next run finishes).
    let code = codeOf(resource);
    for (let attempt = 1; code === undefined; attempt++) {
      await deleteUnopenable(step, client, resource.uid, 'APPLY_INVITE_CODE_MISSING', 'its code did not reach us');
      if (attempt === 2)
        throw new UserError(
          'APPLY_INVITE_CODE_MISSING',
          `${step.address}: the service created the invite twice, but neither answer reached us with its code; both were deleted, so the next apply invites them again`,
        );
      resource = await createOrRevokeInvite(step, client, parentUid, body);
      code = codeOf(resource);
    }
    delete (resource as { code?: unknown }).code;
    // A code nobody keeps is a dead invite (DESIGN.md §8 rev 5): when it cannot be kept (the
    // codes file cannot be written, a disk is full, the code is refused as unsafe to print), the
    // invite is deleted again, and the next apply invites them anew.
    try {
      await keepInviteCode(step, code, onInviteCode);
    } catch (err) {
      const why = `its code could not be kept (${(err as Error).message})`;
      await deleteUnopenable(step, client, resource.uid, 'APPLY_INVITE_CODE_NOT_KEPT', why);
      throw new UserError(
        'APPLY_INVITE_CODE_NOT_KEPT',
        `${step.address}: ${why}; the invite was deleted again, so the next apply invites them anew`,
        { cause: err },
      );
    }
  }
  // The create response is trusted: its uid is what later steps use, nothing is re-listed.
  // A sub-resource is never part of the create body: its own PATCH sets it right after.
  for (const spec of subResourceFields(step.kind)) {
    const text = after[spec.name];
    if (typeof text === 'string') await client.writeSubResource(step.kind, resource.uid, spec.subResource, text);
  }
  // A resource the API names no uid for (an acceptance of terms) is named by the kind's rule.
  const uid = descriptor.uidOf && parentUid !== null ? descriptor.uidOf(after, parentUid) : resource.uid;
  return { uid, differences: answerDifferences(step, { ...after, ...refs }, resource) };
}

/**
 * Sends a create. An invite the service says it made (2xx) in an answer that cannot be read
 * (not JSON, not an object) exists with a code nobody has, and the next plan would count it as
 * pending: it is found by listing (as a lost create is) and deleted again, and the step fails.
 */
async function createOrRevokeInvite(
  step: CreateStep,
  client: ApiClient,
  parentUid: string | null,
  body: Record<string, unknown>,
): Promise<ApiObject> {
  try {
    return await client.create(step.kind, parentUid, body);
  } catch (err) {
    if (step.kind !== INVITE_KIND || !(err instanceof ApiError) || err.status < 200 || err.status >= 300) throw err;
    const made = await findCreated(client, step.kind, parentUid, body, undefined);
    const why = `the service made the invite but its answer could not be read (${err.message})`;
    if (made) await deleteUnopenable(step, client, made.uid, 'APPLY_INVITE_CODE_MISSING', why);
    throw new UserError(
      'APPLY_INVITE_CODE_MISSING',
      `${step.address}: ${why}; ${made ? 'the invite was deleted again' : 'no such invite is listed'}, so the next apply invites them anew`,
      { cause: err },
    );
  }
}

/**
 * Deletes again an invite whose code nobody has (a code nobody keeps is a dead invite). When
 * the delete fails too, the invite stays open and the next plan counts its member as pending:
 * the failure says why, that it stays, and how to replace it — not only that a delete failed.
 */
async function deleteUnopenable(
  step: CreateStep,
  client: ApiClient,
  uid: string,
  code: string,
  why: string,
): Promise<void> {
  try {
    await client.delete(step.kind, uid, { ignoreMissing: true });
  } catch (err) {
    const email = step.after.email;
    const replace =
      typeof email === 'string' && email !== ''
        ? `replace it with \`apply --reinvite ${email}\``
        : 'delete it by hand, and the next apply invites anew';
    throw new UserError(
      code,
      `${step.address}: ${why}, and the invite (${uid}) could not be deleted again (${(err as Error).message}): it stays open with a code nobody has, and the next plan counts it as pending; ${replace}`,
      { cause: err },
    );
  }
}

/** The code an invite's create answer carries, if it reached us. */
function codeOf(resource: object): string | undefined {
  const code = (resource as { code?: unknown }).code;
  return typeof code === 'string' && code !== '' ? code : undefined;
}

async function keepInviteCode(step: CreateStep, code: string, onInviteCode: KeepInviteCode | undefined): Promise<void> {
  await onInviteCode?.({
    group: step.parent ?? 'org',
    ...(typeof step.after.email === 'string' ? { email: step.after.email } : {}),
    // The role as the address names it: `groupInvite:<group path>/<email>=<role>`.
    role: step.address.slice(step.address.lastIndexOf('=') + 1),
    expirationTime: String(step.after.expirationTime),
    code,
  });
}

async function updateResource(
  step: UpdateStep,
  client: ApiClient,
  created: CreatedUids,
  readSecret: SecretReader,
): Promise<StepOutcome> {
  const uid = step.uid;
  const after = step.after;
  const mask = step.updateMask;
  const subResources = subResourceFields(step.kind);
  const fieldMask = mask.filter((f) => !subResources.some((spec) => spec.name === f));
  let differences: AnswerDifference[] = [];
  if (fieldMask.length > 0) {
    const body: Record<string, unknown> = {};
    for (const field of fieldMask) {
      if (after[field] !== undefined) setAtPath(body, field, after[field]);
    }
    // A role binding's role change is this one PATCH with updateMask=roleUid.
    const refs = resolveRefs(step, created, fieldMask);
    Object.assign(body, refs);
    // A secret is sent only when the mask names it (apply --rotate-secrets).
    addSecrets(step, body, readSecret, fieldMask);
    const answer = await client.update(step.kind, uid, body, fieldMask);
    differences = answerDifferences(step, { ...after, ...refs }, answer);
  }
  for (const spec of subResources) {
    if (!mask.includes(spec.name)) continue;
    const text = after[spec.name];
    await client.writeSubResource(step.kind, uid, spec.subResource, typeof text === 'string' ? text : '');
  }
  return { uid, differences };
}

async function deleteResource(step: DeleteStep, client: ApiClient): Promise<string> {
  const uid = step.uid;
  // Already gone (e.g. deleted by a run that crashed before reporting) counts as done, so a
  // re-run after an interruption converges instead of failing on its own earlier work.
  await client.delete(step.kind, uid, { ignoreMissing: true });
  return uid;
}

function resolveParentUid(step: PlanStep, created: CreatedUids): string {
  const uid = step.parentUid ?? (step.parent ? created.get(step.parent) : undefined);
  if (uid) return uid;
  throw new UnresolvedUidError(
    step.parent
      ? `${step.address}: the uid of its parent ${step.parent} is unknown (the parent neither exists nor was created by this apply)`
      : `${step.address}: the step names no parent to create it under`,
  );
}

/** Body fields (among `fields`) that carry the uid of another resource. */
function resolveRefs(
  step: CreateStep | UpdateStep,
  created: CreatedUids,
  fields: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, ref] of Object.entries(step.refs ?? {}) as [string, UidReference | undefined][]) {
    if (!ref || !fields.includes(field)) continue;
    const uid = ref.uid ?? created.get(ref.address);
    if (!uid) {
      throw new UnresolvedUidError(
        `${step.address}: the uid of ${ref.address} (for ${field}) is unknown (it neither exists nor was created by this apply)`,
      );
    }
    out[field] = uid;
  }
  return out;
}
