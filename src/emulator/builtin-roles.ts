/**
 * The built-in roles every org has (DESIGN.md §2, §6 rev 6), as the emulator serves them: the
 * service's own names and capability sets, loaded as data from src/service/capabilities.json
 * (read off the service's public SDK) — not taken from the client's kind table (STYLE.md 16).
 */
import { BUILTIN_ROLE_CAPABILITIES } from '../service/catalog.js';

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

export const BUILTIN_ROLES: Readonly<Record<string, { description: string; capabilities: readonly string[] }>> = Object.fromEntries(
  BUILTIN_ROLE_NAMES.map((name) => [name, { description: DESCRIPTIONS[name] ?? '', capabilities: BUILTIN_ROLE_CAPABILITIES[name]! }]),
);
