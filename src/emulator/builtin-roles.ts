/**
 * The built-in roles every org has (DESIGN.md §2, §6), as the emulator serves them: their names,
 * descriptions and capabilities, written from its contract — not taken from the client's kind
 * table (STYLE.md 16).
 */
import { capabilitiesOfContract } from './contract.js';

export const BUILTIN_ROLE_NAMES = ['viewer', 'editor', 'owner', 'registry.pull', 'registry.push'] as const;
export type BuiltinRoleName = (typeof BUILTIN_ROLE_NAMES)[number];

const CAPABILITIES = capabilitiesOfContract();
const LIST_CAPABILITIES = CAPABILITIES.filter((c) => c.endsWith('.list'));

export const BUILTIN_ROLES: Readonly<Record<BuiltinRoleName, { description: string; capabilities: readonly string[] }>> = {
  viewer: { description: 'Read access to everything in the group', capabilities: LIST_CAPABILITIES },
  editor: { description: 'Read and write access, without managing role bindings', capabilities: CAPABILITIES.filter((c) => !c.startsWith('role_bindings.') || c.endsWith('.list')) },
  owner: { description: 'Full access, including role bindings', capabilities: CAPABILITIES },
  'registry.pull': { description: 'Pull images from the registry', capabilities: ['repo.list', 'tag.list'] },
  'registry.push': { description: 'Push images to the registry', capabilities: ['repo.list', 'tag.list', 'tag.create'] },
};
