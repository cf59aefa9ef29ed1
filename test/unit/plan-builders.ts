/**
 * Builders for planner tests: desired and live states written in a line each, with addresses
 * computed by the real address functions (so a test cannot drift from what the loader and the
 * live reader produce). Live uids are deterministic: the org is `a…a` (40 hex), children are
 * `<parent uid>/<16 hex counter>`.
 */
import {
  groupAddress,
  joinPath,
  namedAddress,
  parentPath,
  roleBindingAddress,
  tagAddress,
} from '../../src/model/address.js';
import SERVICE from '../../src/service/capabilities.json' with { type: 'json' };
import type { IdentityKey, RoleKey } from '../../src/model/address.js';
import type {
  DesiredResource,
  DesiredState,
  FieldsByKind,
  LiveResource,
  LiveState,
  ResourceUnion,
  Settings,
} from '../../src/model/resources.js';
import { descriptorOf, type Kind } from '../../src/model/kinds.js';
import type { Plan, PlanRefusal, PlanStep, StepRefs } from '../../src/model/plan.js';
import { plan, type PlanOptions } from '../../src/plan/index.js';

export const ORG_UID = 'a'.repeat(40);
export const BUILTIN_ROLES: Record<string, string> = {
  viewer: '1'.repeat(40),
  editor: '2'.repeat(40),
  owner: '3'.repeat(40),
  'registry.pull': '4'.repeat(40),
  'registry.push': '5'.repeat(40),
  'registry.pull_token_creator': '6'.repeat(40),
};

/** A resource without its side-specific parts: kind, address, group path, parent, fields. */
export type Shape = ResourceUnion;

function shape<K extends Kind>(
  kind: K,
  address: string,
  groupPath: string,
  parentAddress: string | null,
  fields: FieldsByKind[K],
): Shape {
  return { kind, address, groupPath, parentAddress, fields } as unknown as Shape;
}

/** Shapes of every kind, addressed as the loader and the live reader address them. */
export const r = {
  org(fields: { name?: string; description?: string } = {}): Shape {
    return shape('group', 'org', '', null, { name: 'acme', ...fields });
  },
  group(path: string, fields: { description?: string } = {}): Shape {
    return shape('group', groupAddress(path), path, groupAddress(parentPath(path)), {
      name: path.slice(path.lastIndexOf('/') + 1),
      ...fields,
    });
  },
  identity(groupPath: string, name: string, fields: Partial<FieldsByKind['identity']> = {}): Shape {
    return shape('identity', namedAddress('identity', groupPath, name), groupPath, groupAddress(groupPath), {
      name,
      ...fields,
    });
  },
  role(groupPath: string, name: string, fields: Partial<FieldsByKind['role']> = {}): Shape {
    return shape('role', namedAddress('role', groupPath, name), groupPath, groupAddress(groupPath), {
      name,
      ...fields,
    });
  },
  repo(groupPath: string, name: string, fields: Partial<FieldsByKind['repo']> = {}): Shape {
    return shape('repo', namedAddress('repo', groupPath, name), groupPath, groupAddress(groupPath), {
      name,
      ...fields,
    });
  },
  identityProvider(groupPath: string, name: string, fields: Partial<FieldsByKind['identityProvider']> = {}): Shape {
    return shape(
      'identityProvider',
      namedAddress('identityProvider', groupPath, name),
      groupPath,
      groupAddress(groupPath),
      { name, ...fields },
    );
  },
  groupMapping(groupPath: string, idpName: string, externalGroup: string, role: RoleKey): Shape {
    const fields = { externalGroup, role };
    const address = descriptorOf('groupMapping').address(groupPath, fields, { groupPath, fields: { name: idpName } });
    return shape('groupMapping', address, groupPath, namedAddress('identityProvider', groupPath, idpName), fields);
  },
  accountAssociation(groupPath: string, fields: Partial<FieldsByKind['accountAssociation']> = {}): Shape {
    return shape(
      'accountAssociation',
      descriptorOf('accountAssociation').address(groupPath, {}, { groupPath, fields: {} }),
      groupPath,
      groupAddress(groupPath),
      { name: 'assoc', ...fields },
    );
  },
  terms(docId: string): Shape {
    return shape('terms', `terms:${docId}`, '', 'org', { docId });
  },
  subscription(groupPath: string, sink: string): Shape {
    return shape('subscription', namedAddress('subscription', groupPath, sink), groupPath, groupAddress(groupPath), {
      sink,
    });
  },
  tag(
    groupPath: string,
    repoName: string,
    name: string,
    digest = `sha256:${'0'.repeat(64)}`,
    deprecated = false,
  ): Shape {
    const repoPath = joinPath(groupPath, repoName);
    return shape('tag', tagAddress(repoPath, name), groupPath, namedAddress('repo', groupPath, repoName), {
      name,
      digest,
      deprecated,
    });
  },
  /** A live invite (the plan's members phase makes the desired ones): addressed by its e-mail, else `noEmailKey`. */
  invite(
    groupPath: string,
    role: RoleKey | string,
    fields: { email?: string; expirationTime: string; singleUse?: boolean },
    noEmailKey = '0000000000000001',
  ): Shape {
    const roleKey: RoleKey =
      typeof role === 'string'
        ? role in BUILTIN_ROLES
          ? { builtin: role }
          : { path: joinPath(groupPath, role) }
        : role;
    const all = { ...fields, role: roleKey };
    return shape(
      'groupInvite',
      descriptorOf('groupInvite').address(groupPath, all, { groupPath, fields: {} }, `x/${noEmailKey}`),
      groupPath,
      groupAddress(groupPath),
      all,
    );
  },
  /**
   * A binding; string references read as in a manifest: a bare name is a sibling in
   * `groupPath`, `/a/b` a path from the org root, a built-in role name is the built-in.
   */
  binding(groupPath: string, identity: IdentityKey | string, role: RoleKey | string): Shape {
    const path = (ref: string) => (ref.startsWith('/') ? ref.slice(1) : joinPath(groupPath, ref));
    const identityKey: IdentityKey = typeof identity === 'string' ? { path: path(identity) } : identity;
    const roleKey: RoleKey =
      typeof role === 'string' ? (role in BUILTIN_ROLES ? { builtin: role } : { path: path(role) }) : role;
    return shape(
      'roleBinding',
      roleBindingAddress(groupPath, identityKey, roleKey),
      groupPath,
      groupAddress(groupPath),
      {
        identity: identityKey,
        role: roleKey,
      },
    );
  },
};

export function defaultSettings(overrides: Partial<Settings> = {}): Settings {
  return { prune: true, ignore: [], protect: [], ...overrides };
}

/**
 * A desired state from shapes. The org shape is added when missing; each resource gets a
 * source line equal to its position (1-based) in `manifest.yaml`.
 */
export function desiredState(
  shapes: Shape[],
  options: { settings?: Partial<Settings>; orgName?: string; orgUid?: string } = {},
): DesiredState {
  const all = shapes.some((s) => s.address === 'org')
    ? shapes
    : [r.org({ name: options.orgName ?? 'acme' }), ...shapes];
  const resources: DesiredResource[] = all.map((s, i) => {
    const res = { ...s, source: { file: 'manifest.yaml', line: i + 1, column: 1 } } as DesiredResource;
    if (s.address === 'org' && options.orgUid !== undefined) res.uid = options.orgUid;
    return res;
  });
  const orgShape = all.find((s) => s.address === 'org')!;
  const org: DesiredState['org'] = {
    name: (orgShape.fields as { name: string }).name,
    source: { file: 'manifest.yaml', line: 1, column: 1 },
  };
  if (options.orgUid !== undefined) org.uid = options.orgUid;
  return { org, resources, settings: defaultSettings(options.settings), files: ['manifest.yaml'] };
}

/**
 * A live state from shapes, parents before children. Uids are assigned in order; a shape can
 * carry an explicit uid (for `{uid}` references) and an `updateTime`.
 */
export function liveState(
  shapes: (Shape | { shape: Shape; uid?: string; updateTime?: string })[],
  options: { orgUid?: string; incomplete?: LiveState['incomplete']; ambiguities?: LiveState['ambiguities'] } = {},
): LiveState {
  const entries = shapes.map((s) => ('shape' in s ? s : { shape: s }));
  if (!entries.some((e) => e.shape.address === 'org')) entries.unshift({ shape: r.org() });
  const uidByAddress = new Map<string, string>();
  const resources: LiveResource[] = [];
  let counter = 0;
  for (const e of entries) {
    const s = e.shape;
    let parentUid: string | null = null;
    if (s.parentAddress !== null) {
      parentUid = uidByAddress.get(s.parentAddress) ?? null;
      if (parentUid === null) throw new Error(`builder: parent ${s.parentAddress} of ${s.address} must come first`);
    }
    // As the API gives them: a kind whose uid is its parent's (an account association) shares it.
    const sharesParentUid = descriptorOf(s.kind).uidIsParent === true && parentUid !== null;
    const uid =
      e.uid ??
      (sharesParentUid
        ? parentUid!
        : parentUid === null
          ? (options.orgUid ?? ORG_UID)
          : `${parentUid}/${(++counter).toString(16).padStart(16, '0')}`);
    if (!uidByAddress.has(s.address)) uidByAddress.set(s.address, uid);
    const live = { ...s, uid, parentUid } as LiveResource;
    if (e.updateTime !== undefined) live.updateTime = e.updateTime;
    resources.push(live);
  }
  const orgResource = resources.find((x) => x.address === 'org')!;
  return {
    org: { uid: orgResource.uid, name: (orgResource.fields as { name: string }).name },
    resources,
    incomplete: options.incomplete ?? [],
    ambiguities: options.ambiguities ?? [],
    builtinRoles: { ...BUILTIN_ROLES },
    // What the roles list answers for them: the service's sets (DESIGN.md §2 rev 6).
    builtinRoleCapabilities: { ...SERVICE.builtinRoles },
  };
}

/** Live state of an org that does not exist yet. */
export function emptyLive(): LiveState {
  return {
    org: null,
    resources: [],
    incomplete: [],
    ambiguities: [],
    builtinRoles: { ...BUILTIN_ROLES },
    builtinRoleCapabilities: { ...SERVICE.builtinRoles },
  };
}

/** The uid the builder gave to a live resource at an address. */
export function uidOf(live: LiveState, address: string): string {
  const found = live.resources.find((x) => x.address === address);
  if (!found) throw new Error(`builder: no live resource at ${address}`);
  return found.uid;
}

// Readers of a plan shared by the plan-rules tests (plan-rules, plan-renames, plan-deletes, plan-refusals).
/** A step with every action's fields readable (absent where its action has none). */
export type AnyStep = PlanStep & {
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  refs?: StepRefs;
  uid?: string;
  updateMask?: string[];
};

export function step(p: Plan, address: string): AnyStep {
  const found = p.steps.find((s) => s.address === address);
  if (!found) throw new Error(`no step ${address} in ${p.steps.map((s) => `${s.action} ${s.address}`).join(', ')}`);
  return found;
}

export function outline(p: Plan): string[] {
  return p.steps.map((s) => `${s.action} ${s.address}`);
}

export function refusalsOf(desired: DesiredState, live: LiveState, options?: PlanOptions): PlanRefusal[] {
  const refusals = plan(desired, live, options).refusals;
  if (refusals.length === 0) throw new Error('expected the plan to be refused');
  return refusals;
}

export const ISSUER = 'https://token.actions.githubusercontent.com';

export function renamed<S extends object>(shape: S, old: string): S {
  return { ...shape, renamedFrom: old };
}
