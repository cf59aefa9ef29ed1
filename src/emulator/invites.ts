/**
 * Group invites in the emulator (DESIGN.md §2, §6): the rules a create must meet beyond its
 * schema, the code (a secret: returned by the create alone, stored only as its hash), and the
 * emulator-only accept endpoint `POST /_emulator/groupInvites:accept`, which consumes an invite
 * the way a person accepting it would — it creates their identity (with their e-mail and a
 * claimMatch of the issuer/subject they signed in with) and the binding of the invite's role.
 * Written from the contract, sharing nothing with the client.
 */
import { createHash, randomBytes } from 'node:crypto';
import { invalidArgument, ApiFailure, notFound, permissionDenied } from './failures.js';
import { isPlainObject } from './values.js';
import type { ResourceData, Store, StoredResource } from './store.js';

export const ACCEPT_INVITE_PATH = '/_emulator/groupInvites:accept';

/** The longest an invite may stay open (DESIGN.md §2). */
const MAX_AHEAD_MS = 30 * 24 * 3600 * 1000;
/** How much a client's clock may run ahead of the service's when it sets an expiration. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** An invite's expiration as a create must give it: in the future, at most 30 days ahead. */
export function checkInviteExpiration(expirationTime: string, nowMs: number): void {
  const at = Date.parse(expirationTime);
  if (!Number.isFinite(at))
    throw invalidArgument([{ field: 'expirationTime', description: 'expirationTime must be an RFC 3339 time' }]);
  if (at <= nowMs)
    throw invalidArgument([
      { field: 'expirationTime', description: `expirationTime ${expirationTime} is not in the future` },
    ]);
  if (at > nowMs + MAX_AHEAD_MS + CLOCK_SKEW_MS)
    throw invalidArgument([
      { field: 'expirationTime', description: `expirationTime ${expirationTime} is more than 30 days ahead` },
    ]);
}

/** Whether an invite has expired at `nowMs`. */
export function inviteExpired(data: ResourceData, nowMs: number): boolean {
  const at = Date.parse(data.expirationTime ?? '');
  return !Number.isFinite(at) || at <= nowMs;
}

/** The hash the store keeps of a code (the code itself is never stored). */
export function hashInviteCode(code: string): string {
  return `sha256:${createHash('sha256').update(code, 'utf8').digest('hex')}`;
}

/** A new code: 32 random bytes, URL-safe (always crypto randomness, whatever the uid seed). */
export function newInviteCode(): string {
  return randomBytes(32).toString('base64url');
}

/** An accept request: `{code, email, issuer, subject}`, all strings. */
export interface AcceptRequest {
  code: string;
  email: string;
  issuer: string;
  subject: string;
}

/** An e-mail address, as the contract's `Email` schema has it. */
export const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

export function parseAcceptRequest(body: unknown): AcceptRequest {
  if (!isPlainObject(body))
    throw invalidArgument([{ field: 'body', description: 'must be a JSON object {code, email, issuer, subject}' }]);
  const violations = [];
  for (const field of ['code', 'email', 'issuer', 'subject'] as const) {
    if (typeof body[field] !== 'string' || body[field] === '')
      violations.push({ field, description: `${field} is required and must be a non-empty string` });
  }
  for (const field of Object.keys(body))
    if (!['code', 'email', 'issuer', 'subject'].includes(field))
      violations.push({ field, description: 'is not a field of an accept request' });
  if (violations.length === 0 && (!EMAIL.test(body.email as string) || (body.email as string).length > 254))
    violations.push({ field: 'email', description: 'email must be an e-mail address' });
  if (violations.length === 0 && !/^https:\/\/[\x21-\x7e]+$/.test(body.issuer as string))
    violations.push({ field: 'issuer', description: 'issuer must be an https:// URL' });
  if (violations.length > 0) throw invalidArgument(violations);
  return body as unknown as AcceptRequest;
}

/** The invite a code opens, refused when unknown, expired, or meant for another e-mail. */
/** E-mails compare by ASCII lower case only: a Kelvin sign is no `k`. */
const lowerAscii = (email: string): string => email.replace(/[A-Z]/g, (c) => c.toLowerCase());

export function inviteForCode(
  invites: Iterable<StoredResource>,
  request: AcceptRequest,
  nowMs: number,
): StoredResource {
  const hash = hashInviteCode(request.code);
  let found: StoredResource | undefined;
  for (const r of invites) if (r.kind === 'groupInvite' && r.data.codeHash === hash) found = r;
  // The code is never echoed: it is a secret.
  if (!found) throw notFound('groupInvite', '', 'no open invite has this code (it may have been accepted or deleted)');
  if (inviteExpired(found.data, nowMs))
    throw new ApiFailure(
      'FAILED_PRECONDITION',
      `Precondition failed: invite ${found.uid} expired at ${found.data.expirationTime}`,
      [],
    );
  if (found.data.email !== undefined && lowerAscii(found.data.email) !== lowerAscii(request.email)) {
    throw permissionDenied(`invite ${found.uid} is for another e-mail address`);
  }
  return found;
}

/** A name for the identity of a person who accepts: their e-mail's local part, as a name may be written. */
export function identityNameFor(email: string, taken: (name: string) => boolean): string {
  const base =
    email
      .slice(0, email.indexOf('@'))
      .toLowerCase()
      .replace(/[^a-z0-9._-]/g, '-') || 'member';
  if (!taken(base)) return base;
  for (let i = 2; ; i++) if (!taken(`${base}-${i}`)) return `${base}-${i}`;
}

/**
 * The person holding a code accepts it: their identity (a name from their e-mail, the e-mail, a
 * claimMatch of the issuer and subject they signed in with) and its binding of the invite's role
 * are created in the invite's group, through `create` (every API check applies), and a
 * single-use invite is consumed.
 */
export function acceptInvite(
  store: Store,
  body: unknown,
  nowMs: number,
  create: (kind: 'identity' | 'roleBinding', parent: string, data: ResourceData) => StoredResource,
): { identity: StoredResource; binding: StoredResource } {
  const request = parseAcceptRequest(body);
  const invite = inviteForCode(store.query('groupInvite', {}, 'uid'), request, nowMs);
  const group = invite.parent!;
  const taken = new Set(store.childrenOf(group, 'identity').map((i) => i.data.name));
  const name = identityNameFor(request.email, (n) => taken.has(n));
  const identity = create('identity', group, {
    name,
    description: '',
    claimMatch: { issuer: request.issuer, subject: request.subject },
    email: request.email,
  });
  const binding = create('roleBinding', group, { identityUid: identity.uid, roleUid: invite.data.role! });
  if (invite.data.singleUse !== false) store.remove(invite);
  return { identity, binding };
}
