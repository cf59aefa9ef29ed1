/**
 * The Platform API v2 behaviour, independent of sockets: one `handle()` call per request,
 * from method, decoded path, query, body and bearer token to a status and a JSON body.
 * Faults, latency and the socket live in server.ts; this file is deterministic given its
 * clock and uid source.
 */
import type { ApiKind, Kind } from '../model/kinds.js';
import { BUILTIN_ROLE_NAMES, builtinRoleResources, builtinRoleUid } from './builtin-roles.js';
import { type Caller, checkBindingRefs, checkRoleRef, clashFailure, visible } from './caller-checks.js';
import { answerViolations, kindContract, openApiText } from './contract.js';
import {
  ApiFailure,
  errorDomainFor,
  invalidArgument,
  notFound,
  permissionDenied,
  resourceNotEmpty,
  unauthenticated,
  methodNotAllowed,
  internalError,
} from './failures.js';
import { parseListRequest, slicePage } from './list.js';
import { generateHex, type Random } from './prng.js';
import { RenderedJson, renderResource } from './render.js';
import { type ApiReply, type ApiRequest, type EmulatorToken, JsonText } from './exchange.js';
import { describeNaturalKey, Store, type ResourceData, type StoredResource } from './store.js';
import { expandNestedMask, TERMS_DOCUMENT_ID, validateCreate, validatePatch } from './validate.js';
import { ACCEPT_INVITE_PATH, acceptInvite, checkInviteExpiration, hashInviteCode, newInviteCode } from './invites.js';
import type { StoreFault } from './faults.js';
import {
  PING_PATH,
  OPENAPI_PATH,
  README_SUFFIX,
  matchRoute,
  answerSchemaFor,
  allowedMethods,
  methodNotOnPath,
  checkParameters,
  updateMaskOf,
  rejectQuery,
} from './routes.js';

export interface ServiceOptions {
  tokens: EmulatorToken[];
  clock: () => number;
  /** Uid randomness; crypto when absent. */
  random?: Random;
  pageTokenTtlMs: number;
  /**
   * Check every answer against the contract's schema before it is sent; one that does not
   * conform becomes a 500 naming what is wrong (tests turn this on: the emulator must keep its
   * own contract, not only the client).
   */
  checkAnswers?: boolean;
  /** Leave out the fields the real service sends that clients must ignore (DESIGN.md §6 rev 4); default false: they are sent. */
  plainResponses?: boolean;
}

export class EmulatorService {
  readonly store = new Store();
  private readonly rendered: RenderedJson;
  /** Leave out the fields only the service sends (`--plain-responses`). */
  private readonly plainResponses: boolean;
  private readonly tokens = new Map<string, Caller>();
  private readonly clock: () => number;
  random: Random | undefined;
  pageTokenTtlMs: number;
  checkAnswers: boolean;

  constructor(options: ServiceOptions) {
    for (const t of options.tokens) this.tokens.set(t.token, { role: t.role, ...(t.scope ? { scope: t.scope } : {}) });
    this.clock = options.clock;
    this.random = options.random;
    this.pageTokenTtlMs = options.pageTokenTtlMs;
    this.checkAnswers = options.checkAnswers === true;
    this.plainResponses = options.plainResponses === true;
    this.rendered = new RenderedJson(this.store, this.plainResponses);
    for (const role of builtinRoleResources()) this.store.insert(role);
  }

  now(): number {
    return this.clock();
  }

  /** Built-in role name → uid. */
  builtinRoleUids(): Record<string, string> {
    return Object.fromEntries(BUILTIN_ROLE_NAMES.map((n) => [n, builtinRoleUid(n)]));
  }

  /** Answers one request. Never throws for a client mistake: those become error replies. */
  handle(req: ApiRequest): ApiReply {
    let reply: ApiReply;
    try {
      reply = this.dispatch(req);
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
      err.inDomain(errorDomainFor(req.path));
      reply = { status: err.status, body: err.toBody(), headers: err.headers };
    }
    if (this.answerFault && reply.body !== undefined) {
      const body: unknown = reply.body instanceof JsonText ? JSON.parse(reply.body.text) : reply.body;
      reply = { ...reply, body: this.answerFault({ method: req.method, path: req.path }, body) };
    }
    return this.checkAnswers ? this.checkedAnswer(req, reply) : reply;
  }

  /** For tests of the checks themselves (EmulatorOptions.answerFault): rewrites an answer's body before it is checked. */
  answerFault: ((request: { method: string; path: string }, body: unknown) => unknown) | undefined;

  /** For tests of clients (EmulatorOptions.storeFault): rewrites what a create or an update stores. */
  storeFault: StoreFault | undefined;

  /** The fields a create or update stores: as validated, unless a store fault keeps something else. */
  private stored<T extends Partial<ResourceData>>(action: 'create' | 'update', kind: ApiKind, fields: T): T {
    return this.storeFault ? (this.storeFault({ kind, action }, { ...fields }) as T) : fields;
  }

  /** The reply, or a 500 naming how it breaks the contract (see ServiceOptions.checkAnswers). */
  private checkedAnswer(req: ApiRequest, reply: ApiReply): ApiReply {
    const schema = reply.status === 200 ? answerSchemaFor(req) : reply.body === undefined ? undefined : 'Error';
    if (schema === undefined || reply.body === undefined) return reply;
    const body: unknown = reply.body instanceof JsonText ? JSON.parse(reply.body.text) : reply.body;
    const problems = answerViolations(schema, body);
    if (problems.length === 0) return reply;
    const failure = internalError(
      `the emulator's answer to ${req.method} ${req.path} breaks its contract (${schema}): ${problems.join('; ')}`,
    );
    return { status: failure.status, body: failure.toBody() };
  }

  private dispatch(req: ApiRequest): ApiReply {
    if (req.path === PING_PATH) {
      if (req.method !== 'GET') throw methodNotAllowed(`${req.method} ${PING_PATH} is not supported; use GET`, ['GET']);
      rejectQuery(req.query, []);
      return { status: 200, body: { response: 'pong' } };
    }
    if (req.path === OPENAPI_PATH) {
      if (req.method !== 'GET')
        throw methodNotAllowed(`${req.method} ${OPENAPI_PATH} is not supported; use GET`, ['GET']);
      rejectQuery(req.query, []);
      return { status: 200, body: new JsonText(openApiText()) };
    }
    if (req.path === ACCEPT_INVITE_PATH) {
      if (req.method !== 'POST')
        throw methodNotAllowed(`${req.method} ${ACCEPT_INVITE_PATH} is not supported; use POST`, ['POST']);
      return this.acceptInvite(req);
    }
    const route = matchRoute(req.path);
    if (!route) throw notFound('endpoint', req.path, `no endpoint ${req.method} ${req.path} in the Platform API v2`);
    const caller = this.authenticate(req.authorization);
    const { kind, rest } = route;
    const method = req.method;
    if (method !== 'GET') {
      if (caller.role !== 'owner')
        throw permissionDenied(`this token is read-only (viewer); ${method} ${req.path} needs an owner token`);
    }
    // The uid and query parameters, as the contract declares them (a method the path lacks is 405 below).
    checkParameters(kind, method, rest, req.query);
    if (kind === 'terms') return this.terms(caller, method, rest, req);
    if (kind === 'repo' && rest.endsWith(README_SUFFIX)) {
      const repoUid = rest.slice(0, -README_SUFFIX.length);
      if (method === 'GET') return this.getReadme(caller, repoUid, req.query);
      if (method === 'PATCH') return this.patchReadme(caller, repoUid, req);
      throw methodNotAllowed(`${method} is not supported on a readme; use GET or PATCH`, ['GET', 'PATCH']);
    }
    if (rest === '') {
      if (method === 'GET') return this.list(caller, kind, req.query, req.shortPage);
      if (method === 'POST' && kind === 'group') return this.create(caller, 'group', null, req);
      // The collection path has no POST but for groups (a new org): 405, as for any method a path
      // lacks (a create names its parent: the message says where).
      const hint =
        method === 'POST' && kindContract(kind).canCreate
          ? `; a create names its parent: POST ${kindContract(kind).collection}/{parent}`
          : '';
      throw methodNotAllowed(
        `${method} ${req.path} is not supported${hint}`,
        kind === 'group' ? ['GET', 'POST'] : ['GET'],
      );
    }
    // A method the path does not have is 405 whether or not the uid exists (DESIGN.md §6 rev 4).
    if (!allowedMethods(kind).includes(method)) throw methodNotOnPath(kind, method);
    switch (method) {
      case 'GET':
        rejectQuery(req.query, []);
        return { status: 200, body: this.render(this.findVisible(caller, kind, rest)) };
      case 'POST':
        return this.create(caller, kind, rest, req);
      case 'PATCH':
        return this.patch(caller, kind, rest, req);
      case 'DELETE':
        return this.remove(caller, kind, rest, req.query);
      default:
        throw methodNotAllowed(`${method} ${req.path} is not supported`, allowedMethods(kind));
    }
  }

  private authenticate(header: string | undefined): Caller {
    if (header === undefined)
      throw unauthenticated('missing Authorization header; send "Authorization: Bearer <token>"');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) throw unauthenticated('the Authorization header must be "Bearer <token>"');
    const caller = this.tokens.get(m[1]!);
    // Never echo the token back.
    if (!caller) throw unauthenticated('the bearer token is not valid');
    return caller;
  }

  /** A resource the caller can see, else 404 with ResourceInfo (outside a scope is "not there"). */
  private findVisible(caller: Caller, kind: ApiKind, uid: string): StoredResource {
    const r = this.store.get(kind, uid);
    if (!r || !visible(caller, r)) throw notFound(kind, uid);
    return r;
  }

  private list(caller: Caller, kind: ApiKind, query: URLSearchParams, shortPage: number | undefined): ApiReply {
    const req = parseListRequest(kind, query);
    if (caller.scope !== undefined) req.filter.scope = caller.scope;
    const sorted = this.store.query(kind, req.filter, req.order.field);
    const page = slicePage(kind, req, sorted, this.clock(), this.pageTokenTtlMs, shortPage);
    const body = this.listBody(kindContract(kind).plural, page.items, {
      totalCount: String(page.totalCount),
      skipped: req.skip,
      nextPageToken: page.nextPageToken || undefined,
    });
    return { status: 200, body, ...(page.shortened ? { shortened: true } : {}) };
  }

  /**
   * `{"<plural>":[…],"totalCount":…}` as JSON.stringify would write it, the items joined from
   * their rendered JSON (RenderedJson: unchanged resources are not rendered again).
   */
  private listBody(plural: string, items: readonly StoredResource[], envelope: Record<string, unknown>): JsonText {
    const rest = JSON.stringify(envelope).slice(1, -1);
    return new JsonText(
      `{${JSON.stringify(plural)}:[${items.map((r) => this.rendered.of(r)).join(',')}]${rest === '' ? '' : `,${rest}`}}`,
    );
  }

  /**
   * `GET /iam/v2/terms/{group}` lists a root group's acceptances (paged like any list);
   * `POST /iam/v2/terms/{group}` `{documentIds}` accepts documents (accepting an accepted one is
   * a no-op). An acceptance is permanent: nothing updates or deletes it.
   */
  private terms(caller: Caller, method: string, groupUid: string, req: ApiRequest): ApiReply {
    // A method the path lacks is 405 whether or not the group exists (DESIGN.md §6 rev 4).
    if (method !== 'GET' && method !== 'POST')
      throw methodNotAllowed(`an acceptance of terms is permanent: ${method} is not supported`, ['GET', 'POST']);
    if (groupUid === '')
      throw invalidArgument([{ field: 'group', description: 'is required in the path: /iam/v2/terms/{group uid}' }]);
    const group = this.findVisible(caller, 'group', groupUid);
    if (group.parent !== null)
      throw invalidArgument([
        { field: 'group', description: `terms are accepted by a root group (an org); ${groupUid} is not one` },
      ]);
    if (method === 'GET') {
      const listReq = parseListRequest('terms', req.query);
      listReq.filter.childrenOf = groupUid;
      const sorted = this.store.query('terms', listReq.filter, listReq.order.field);
      const page = slicePage('terms', listReq, sorted, this.clock(), this.pageTokenTtlMs, undefined);
      return {
        status: 200,
        body: this.listBody('termsAcceptances', page.items, {
          totalCount: String(page.totalCount),
          skipped: listReq.skip,
          nextPageToken: page.nextPageToken || undefined,
        }),
      };
    }
    if (method !== 'POST')
      throw methodNotAllowed(`an acceptance of terms is permanent: ${method} is not supported`, ['GET', 'POST']);
    rejectQuery(req.query, []);
    const body = (req.body ?? {}) as { documentIds?: unknown };
    const extra = Object.keys(body).filter((k) => k !== 'documentIds');
    if (
      extra.length > 0 ||
      !Array.isArray(body.documentIds) ||
      body.documentIds.length === 0 ||
      !body.documentIds.every((d) => typeof d === 'string' && TERMS_DOCUMENT_ID.test(d))
    ) {
      throw invalidArgument([
        {
          field: extra[0] ?? 'documentIds',
          description:
            extra.length > 0
              ? 'is not a field of this request (known: documentIds)'
              : `documentIds must be a non-empty list of document ids, each matching "${TERMS_DOCUMENT_ID.source}"`,
        },
      ]);
    }
    let mutated = false;
    for (const docId of new Set(body.documentIds as string[])) {
      if (this.store.findSibling('terms', groupUid, { docId }) !== undefined) continue; // already accepted: a no-op
      const now = this.clock();
      this.store.insert({
        kind: 'terms',
        uid: this.newUid(groupUid),
        parent: groupUid,
        seq: this.store.allocateSeq(),
        createMs: now,
        updateMs: now,
        data: { docId, acceptedBy: caller.role },
      });
      mutated = true;
    }
    return { status: 200, body: { group: groupUid, documentIds: body.documentIds }, mutated };
  }

  private render(r: StoredResource): Record<string, unknown> {
    return renderResource(this.store, r, this.plainResponses);
  }

  /** A strictly later updateTime than `r` had, so every change is visible in it. */
  private nextUpdateMs(r: StoredResource): number {
    return Math.max(this.clock(), r.updateMs + 1);
  }

  private create(caller: Caller, kind: ApiKind, parentUid: string | null, req: ApiRequest): ApiReply {
    rejectQuery(req.query, []);
    if (!kindContract(kind).canCreate)
      throw methodNotAllowed(`${kindContract(kind).plural} are read-only`, allowedMethods(kind));
    if (parentUid === null && caller.scope !== undefined)
      throw permissionDenied('creating a root group (a new org) needs an unscoped owner token');
    const data = this.stored('create', kind, validateCreate(kind as Kind, req.body));
    // An invite opens for at most 30 days, and its code is answered once: the store keeps a hash.
    const code = kind === 'groupInvite' ? newInviteCode() : undefined;
    if (code !== undefined) {
      checkInviteExpiration(data.expirationTime ?? '', this.clock());
      data.codeHash = hashInviteCode(code);
    }
    // An account association takes its group's uid (at most one per group: a second is 409).
    const r = this.createResource(
      kind,
      parentUid,
      data,
      caller,
      kind === 'accountAssociation' ? (parentUid ?? undefined) : undefined,
    );
    const body = this.render(r);
    return { status: 200, body: code === undefined ? body : { ...body, code }, mutated: true };
  }

  /**
   * Creates one resource after every API check (parent, references, uniqueness). Shared by
   * HTTP creates and the seed loader, so a seed holds only what the API would accept.
   * `data` must already have passed validateCreate (or the seed's equivalent).
   */
  createResource(
    kind: Kind | 'advisory',
    parentUid: string | null,
    data: ResourceData,
    caller: Caller = { role: 'owner' },
    uid?: string,
  ): StoredResource {
    const parentKind = kindContract(kind).parentKind;
    if (parentUid !== null) {
      const parent = this.store.get(parentKind, parentUid);
      if (!parent || !visible(caller, parent))
        throw notFound(
          parentKind,
          parentUid,
          `parent ${parentKind} ${parentUid} does not exist (or is not visible to this token)`,
        );
    }
    if (kind === 'roleBinding') checkBindingRefs(this.store, caller, parentUid!, data.identityUid!, data.roleUid!);
    if (kind === 'identityProvider') checkRoleRef(this.store, caller, parentUid!, data.defaultRole!, 'defaultRole');
    if (kind === 'groupInvite') checkRoleRef(this.store, caller, parentUid!, data.role!, 'role');
    if (kind === 'groupMapping') {
      // The role is given on the org (the only scope there is), from the provider's group.
      const orgUid = parentUid!.slice(0, 40);
      if (data.scope !== orgUid)
        throw invalidArgument([
          { field: 'scope', description: `scope must be the org's root group ${orgUid} (the only scope allowed)` },
        ]);
      const idp = this.store.get('identityProvider', parentUid!)!;
      checkRoleRef(this.store, caller, idp.parent!, data.roleUid!, 'roleUid');
    }
    const clash = this.store.findSibling(kind, parentUid, data);
    if (clash !== undefined)
      throw clashFailure(this.store, caller, kind, clash, describeNaturalKey(kind, data), parentUid);
    const now = this.clock();
    const resource: StoredResource = {
      kind,
      uid: uid ?? this.newUid(parentUid),
      parent: parentUid,
      seq: this.store.allocateSeq(),
      createMs: now,
      updateMs: now,
      data: kind === 'identity' ? { lastSeenMs: now, ...data } : kind === 'repo' ? { readme: '', ...data } : data,
    };
    this.store.insert(resource);
    return resource;
  }

  private newUid(parentUid: string | null): string {
    for (;;) {
      const uid = parentUid === null ? generateHex(40, this.random) : `${parentUid}/${generateHex(16, this.random)}`;
      if (!this.store.hasUid(uid)) return uid;
    }
  }

  private patch(caller: Caller, kind: ApiKind, uid: string, req: ApiRequest): ApiReply {
    const mask = updateMaskOf(req.query);
    const r = this.findVisible(caller, kind, uid);
    if (r.builtin) throw permissionDenied(`role ${r.data.name} is a built-in role and cannot be changed`);
    // A nested path (`oidc.clientId`) changes only that leaf of the stored field.
    const nested = expandNestedMask(kind as Kind, mask, req.body, r.data);
    const { clientSecret, ...asked } = validatePatch(kind as Kind, nested.body, nested.updateMask, req.body);
    const change = this.stored('update', kind, asked);
    if (kind === 'identityProvider') {
      if (change.defaultRole !== undefined)
        checkRoleRef(this.store, caller, r.parent!, change.defaultRole, 'defaultRole');
      // The stored secret is kept unless the mask names oidc.clientSecret.
      if (change.oidc !== undefined || clientSecret !== undefined) {
        const { clientSecret: _given, ...oidc } = change.oidc ?? r.data.oidc ?? { issuer: '', clientId: '' };
        change.oidc = { ...oidc, clientSecret: clientSecret ?? r.data.oidc?.clientSecret };
      }
    }
    const merged: ResourceData = { ...r.data, ...change };
    if (kind === 'roleBinding' && change.roleUid !== undefined)
      checkBindingRefs(this.store, caller, r.parent!, r.data.identityUid!, change.roleUid);
    const clash = this.store.findSibling(kind, r.parent, merged);
    if (clash !== undefined && clash !== r.uid)
      throw clashFailure(this.store, caller, kind, clash, describeNaturalKey(kind, merged), r.parent);
    const mutated = changes(r.data, change);
    if (mutated) this.store.update(r, change, this.nextUpdateMs(r));
    return { status: 200, body: this.render(r), mutated };
  }

  private remove(caller: Caller, kind: ApiKind, uid: string, query: URLSearchParams): ApiReply {
    rejectQuery(query, []);
    const r = this.findVisible(caller, kind, uid);
    if (r.builtin) throw permissionDenied(`role ${r.data.name} is a built-in role and cannot be deleted`);
    if (kind === 'identity' || kind === 'role') {
      const n = this.store.bindingCount(kind, uid);
      const by = kind === 'role' ? 'role binding or identity provider' : 'role binding';
      if (n > 0)
        throw resourceNotEmpty(
          uid,
          `${kind} ${r.data.name} (${uid}) is still referenced by ${n} ${by}${n === 1 ? '' : 's'}; delete them first`,
        );
    }
    // Advisories are the service's read-only data, not the caller's: they never block a
    // delete (the caller could not delete them) and go with their group.
    // An account association shares its group's uid: the group's children are not its own.
    const sharesUid = r.uid === r.parent;
    const { advisory: _advisories, ...counts } = sharesUid ? {} : this.store.childCounts(uid);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    if (total > 0) {
      const list = Object.entries(counts)
        .map(([k, n]) => `${n} ${n === 1 ? k : kindContract(k as ApiKind).plural}`)
        .join(', ');
      throw resourceNotEmpty(
        uid,
        `${kind} ${r.data.name ?? ''} (${uid}) still has children: ${list}; delete them first`,
      );
    }
    if (!sharesUid) for (const advisory of this.store.childrenOf(uid, 'advisory')) this.store.remove(advisory);
    this.store.remove(r);
    return { status: 200, mutated: true };
  }

  /** `POST /_emulator/groupInvites:accept` (emulator-only): see invites.ts. No token: the code is the credential. */
  private acceptInvite(req: ApiRequest): ApiReply {
    rejectQuery(req.query, []);
    const made = acceptInvite(this.store, req.body, this.clock(), (kind, parent, data) =>
      this.createResource(kind, parent, data),
    );
    return {
      status: 200,
      body: { identity: this.render(made.identity), roleBinding: this.render(made.binding) },
      mutated: true,
    };
  }

  private readmeRepo(caller: Caller, repoUid: string): StoredResource {
    return this.findVisible(caller, 'repo', repoUid);
  }

  private getReadme(caller: Caller, repoUid: string, query: URLSearchParams): ApiReply {
    rejectQuery(query, []);
    const repo = this.readmeRepo(caller, repoUid);
    return { status: 200, body: { uid: repo.uid, content: repo.data.readme ?? '' } };
  }

  private patchReadme(caller: Caller, repoUid: string, req: ApiRequest): ApiReply {
    const mask = updateMaskOf(req.query);
    const repo = this.readmeRepo(caller, repoUid);
    const change = validatePatch('readme', req.body, mask);
    const mutated = change.content !== undefined && change.content !== repo.data.readme;
    if (mutated) this.store.update(repo, { readme: change.content }, this.nextUpdateMs(repo));
    return { status: 200, body: { uid: repo.uid, content: repo.data.readme ?? '' }, mutated };
  }
}

function changes(before: ResourceData, change: Partial<ResourceData>): boolean {
  return Object.entries(change).some(([k, v]) => JSON.stringify(before[k as keyof ResourceData]) !== JSON.stringify(v));
}
