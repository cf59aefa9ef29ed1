/**
 * The built-in roles every org has (DESIGN.md §2, §6 rev 6), as the emulator serves them: the
 * service's own names and capability sets, loaded as data from src/service/capabilities.json
 * (read off the service's public SDK) — not taken from the client's kind table (STYLE.md 16).
 */
import { createHash } from 'node:crypto';
import { BUILTIN_ROLE_CAPABILITIES } from '../service/catalog.js';
import type { StoredResource } from './store.js';

/** What the emulator says of each built-in role; a role the data adds and this misses has none. */
const DESCRIPTIONS: Readonly<Record<string, string>> = {
  viewer: 'Read access to everything in the group',
  editor: 'Read and write access to repos and subscriptions, without managing tags, roles or role bindings',
  owner: 'Full access, including roles, role bindings and invites',
  'registry.pull': 'Pull images from the registry',
  'registry.push': 'Push images to the registry, and create repos and groups',
  'registry.pull_token_creator': 'Create pull tokens: identities bound to pull',
};

export const BUILTIN_ROLE_NAMES: readonly string[] = Object.keys(BUILTIN_ROLE_CAPABILITIES);

export const BUILTIN_ROLES: Readonly<Record<string, { description: string; capabilities: readonly string[] }>> =
  Object.fromEntries(
    BUILTIN_ROLE_NAMES.map((name) => [
      name,
      { description: DESCRIPTIONS[name] ?? '', capabilities: BUILTIN_ROLE_CAPABILITIES[name]! },
    ]),
  );

/** Fixed creation time of the built-in roles, so their JSON never changes between runs. */
const BUILTIN_TIME_MS = Date.UTC(2024, 0, 1);

/** The flat 40-hex uid of a built-in role: sha1 of its name, the same in every emulator. */
export function builtinRoleUid(name: string): string {
  return createHash('sha1').update(`platform-builtin-role:${name}`).digest('hex');
}

/** The built-in roles as the store holds them: global (no parent), read-only, never persisted. */
export function builtinRoleResources(): StoredResource[] {
  return BUILTIN_ROLE_NAMES.map((name) => {
    const def = BUILTIN_ROLES[name]!;
    return {
      kind: 'role',
      uid: builtinRoleUid(name),
      parent: null,
      seq: 0,
      createMs: BUILTIN_TIME_MS,
      updateMs: BUILTIN_TIME_MS,
      data: { name, description: def.description, capabilities: [...def.capabilities] },
      builtin: true,
    };
  });
}
