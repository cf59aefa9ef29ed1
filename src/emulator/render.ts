/** Stored resources → the JSON the API returns (camelCase, ms-precision Z timestamps). */
import type { Store, StoredResource } from './store.js';
import { copyJson as copyValue } from './values.js';
import { kindContract } from './contract.js';

let lastMs = NaN;
let lastText = '';

/**
 * `2026-11-20T10:00:00.123Z`: always milliseconds, always Z. The last one is kept: a listing
 * renders runs of resources written in the same millisecond (a seed, a bulk apply).
 */
function formatTimestamp(ms: number): string {
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}

/** Response members the service computes rather than stores. */
const COMPUTED: Readonly<Record<string, (r: StoredResource) => unknown>> = {
  uid: (r) => r.uid,
  createTime: (r) => formatTimestamp(r.createMs),
  updateTime: (r) => formatTimestamp(r.updateMs),
  lastSeenTime: (r) => formatTimestamp(r.data.lastSeenMs ?? r.createMs),
  identityProviderUid: (r) => r.parent,
};

/** An RFC 3339 time as the service answers it: UTC, milliseconds, Z (anything else as it was). */
function serviceTime(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? formatTimestamp(ms) : value;
}

/**
 * The JSON of one resource: the members the contract's response schema lists, in its order —
 * computed ones (uid, timestamps), stored ones (absent: the schema's `default`, else left out),
 * the fields only the service sends (unless `plain`),
 * write-only members (a client secret) never. Role bindings are hydrated from the store on
 * every call.
 */
export function renderResource(store: Store, r: StoredResource, plain = false): Record<string, unknown> {
  const d = r.data as Record<string, unknown>;
  if (r.kind === 'roleBinding')
    return {
      uid: r.uid,
      ...hydrateBinding(store, r),
      createTime: formatTimestamp(r.createMs),
      updateTime: formatTimestamp(r.updateMs),
    };
  if (r.kind === 'terms') {
    // An acceptance has no uid of its own: the document names it within its org.
    return {
      docId: d.docId,
      acceptedBy: d.acceptedBy ?? '',
      orgUid: r.parent,
      createTime: formatTimestamp(r.createMs),
    };
  }
  const out: Record<string, unknown> = {};
  for (const member of kindContract(r.kind).response) {
    // What the real service sends and a client must ignore (x-service-sent): left out when plain.
    if (plain && member.serviceSent) continue;
    const computed = COMPUTED[member.name];
    if (computed) {
      out[member.name] = computed(r);
      continue;
    }
    const value = d[member.name];
    if (value === undefined || value === null) {
      if (member.default !== undefined) out[member.name] = copyValue(member.default);
      continue;
    }
    let copy: unknown = copyValue(value);
    if (member.writeOnly.length > 0 && typeof copy === 'object' && copy !== null)
      for (const w of member.writeOnly) delete (copy as Record<string, unknown>)[w];
    // Times in the service's one form (milliseconds and Z), whatever form they were sent in.
    for (const at of member.instants) {
      if (at === '') copy = serviceTime(copy);
      else if (typeof copy === 'object' && copy !== null && at in copy)
        (copy as Record<string, unknown>)[at] = serviceTime((copy as Record<string, unknown>)[at]);
    }
    out[member.name] = copy;
  }
  return out;
}

/**
 * The JSON text of each resource as renderResource gives it, kept while the store stays at the
 * version it was rendered at (any change may show in another resource: a binding shows its
 * identity's name). Listings are read far more often than the store changes: a page of 200
 * hydrated bindings is then joined, not rendered and stringified again.
 */
export class RenderedJson {
  private texts = new WeakMap<StoredResource, string>();
  private version = -1;

  constructor(
    private readonly store: Store,
    private readonly plain = false,
  ) {}

  of(r: StoredResource): string {
    if (this.store.version !== this.version) {
      this.texts = new WeakMap();
      this.version = this.store.version;
    }
    let text = this.texts.get(r);
    if (text === undefined) this.texts.set(r, (text = JSON.stringify(renderResource(this.store, r, this.plain))));
    return text;
  }
}

function hydrateBinding(store: Store, r: StoredResource): Record<string, unknown> {
  const identity = store.get('identity', r.data.identityUid ?? '');
  const group = r.parent === null ? undefined : store.get('group', r.parent);
  const role = store.get('role', r.data.roleUid ?? '');
  return {
    identity: {
      uid: r.data.identityUid,
      name: identity?.data.name ?? '',
      description: identity?.data.description ?? '',
      // Only when the relationship has them (an exact claimMatch, or static keys).
      subject: identity?.data.claimMatch?.subject ?? identity?.data.staticKeys?.subject ?? '',
      issuer: identity?.data.claimMatch?.issuer ?? identity?.data.staticKeys?.issuer ?? '',
    },
    group: { uid: r.parent, name: group?.data.name ?? '', description: group?.data.description ?? '' },
    role: { uid: r.data.roleUid, name: role?.data.name ?? '', description: role?.data.description ?? '' },
  };
}
