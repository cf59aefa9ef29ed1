/** Wording the views share: how a reader is told what an internal reference address means. */

/**
 * A reference address as a reader should see it: built-ins by name, outside uids said plainly
 * (the uid itself is shown beside it), addresses in the org as they are.
 */
export function describeRefAddress(address: string): string {
  const m = /^(identity|role):(builtin|uid):(.*)$/.exec(address);
  if (!m) return address;
  return m[2] === 'builtin' ? `built-in role ${m[3]}` : `${m[1]} outside the org`;
}
