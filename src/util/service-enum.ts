/**
 * An enum value as the service may answer it (DESIGN.md §2 rev 6): in full (`CATALOG_TIER_FIPS`,
 * `SERVICE_PRINCIPAL_COSIGNED`) or short (`FIPS`), and its zero value (`…_UNSPECIFIED`, also
 * `UNKNOWN`) or "" for none. One reading for every enum that crosses the wire.
 */

const UNSET: ReadonlySet<string> = new Set(['', 'UNSPECIFIED', 'UNKNOWN']);

/** The short name of an enum value of the family `prefix`; undefined when it is unset; anything not a string as it was. */
export function shortEnumValue(value: unknown, prefix: string): unknown {
  if (typeof value !== 'string') return value;
  const short = value.startsWith(prefix) ? value.slice(prefix.length) : value;
  return UNSET.has(short) ? undefined : short;
}
