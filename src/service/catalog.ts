/**
 * Facts about the real service's capabilities, read off its public SDK (DESIGN.md §2 rev 6):
 * `capabilities.json` beside this file is a verbatim copy of `shared/service/capabilities.json`,
 * loaded as data — never retyped. The model (what a custom role may hold, what a built-in role
 * holds when a state has no roles list) and the emulator (what it accepts and serves) both read it.
 */
import data from './capabilities.json' with { type: 'json' };

/** Every capability name the service defines (153 in August 2026): what a custom role may hold. */
export const CATALOG: readonly string[] = Object.freeze([...data.catalog]);

/** The built-in roles as the service defines them: name → the capabilities it holds. */
export const BUILTIN_ROLE_CAPABILITIES: Readonly<Record<string, readonly string[]>> = Object.freeze(
  Object.fromEntries(Object.entries(data.builtinRoles).map(([name, caps]) => [name, Object.freeze([...caps])])),
);

/** The built-in roles' names, in the service's order. */
export const BUILTIN_ROLE_NAMES_OF_SERVICE: readonly string[] = Object.freeze(Object.keys(data.builtinRoles));

/** Capabilities that grant capabilities (DESIGN.md §4 "Escalation"): name → how. */
export const ESCALATING: Readonly<Record<string, string>> = Object.freeze({ ...data.escalating });

const CATALOG_SET: ReadonlySet<string> = new Set(CATALOG);

/** Whether the service's catalog holds this name. */
export function isCatalogCapability(name: string): boolean {
  return CATALOG_SET.has(name);
}
