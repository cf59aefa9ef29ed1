/** Stored resources → the JSON the API returns (camelCase, ms-precision Z timestamps). */
import type { Store, StoredResource } from './store.js';
import { copyValue } from '../model/kind-descriptor.js';

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


/** The JSON of one resource; role bindings are hydrated from the store on every call. */
export function renderResource(store: Store, r: StoredResource): Record<string, unknown> {
  const d = r.data;
  const times = { createTime: formatTimestamp(r.createMs), updateTime: formatTimestamp(r.updateMs) };
  switch (r.kind) {
    case 'group':
    case 'repo':
      return { uid: r.uid, name: d.name, description: d.description ?? '', ...times };
    case 'identity':
      return {
        uid: r.uid,
        name: d.name,
        description: d.description ?? '',
        ...(d.claimMatch ? { claimMatch: copyValue(d.claimMatch) } : {}),
        ...(d.awsIdentity ? { awsIdentity: copyValue(d.awsIdentity) } : {}),
        ...(d.staticKeys ? { staticKeys: copyValue(d.staticKeys) } : {}),
        ...(d.servicePrincipal ? { servicePrincipal: d.servicePrincipal } : {}),
        lastSeenTime: formatTimestamp(d.lastSeenMs ?? r.createMs),
        ...times,
      };
    case 'role':
      return { uid: r.uid, name: d.name, description: d.description ?? '', capabilities: [...(d.capabilities ?? [])], ...times };
    case 'roleBinding':
      return { uid: r.uid, ...hydrateBinding(store, r), ...times };
    case 'tag':
      return { uid: r.uid, name: d.name, digest: d.digest, deprecated: d.deprecated ?? false, ...times };
    case 'subscription':
      return { uid: r.uid, sink: d.sink, ...times };
    case 'identityProvider': {
      // The client secret is write-only: never returned.
      const { clientSecret: _secret, ...oidc } = d.oidc ?? { issuer: '', clientId: '' };
      return { uid: r.uid, name: d.name, description: d.description ?? '', defaultRole: d.defaultRole, oidc: copyValue(oidc), ...times };
    }
    case 'accountAssociation': {
      const blocks = Object.fromEntries((['amazon', 'google', 'azure', 'github', 'chainguard'] as const).flatMap((b) => (d[b] ? [[b, copyValue(d[b])]] : [])));
      return { uid: r.uid, name: d.name, description: d.description ?? '', ...blocks, ...times };
    }
    case 'terms':
      // An acceptance has no uid of its own: the document names it within its org.
      return { docId: d.docId, acceptedBy: d.acceptedBy ?? '', orgUid: r.parent, createTime: times.createTime };
    case 'groupMapping':
      return { uid: r.uid, identityProviderUid: r.parent, externalGroupId: d.externalGroupId, roleUid: d.roleUid, scope: d.scope, ...times };
    case 'advisory':
      return { uid: r.uid, advisoryId: d.advisoryId, artifactName: d.artifactName, ...times };
  }
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

  constructor(private readonly store: Store) {}

  of(r: StoredResource): string {
    if (this.store.version !== this.version) {
      this.texts = new WeakMap();
      this.version = this.store.version;
    }
    let text = this.texts.get(r);
    if (text === undefined) this.texts.set(r, (text = JSON.stringify(renderResource(this.store, r))));
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
