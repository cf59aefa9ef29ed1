/**
 * "Did you mean" hints for misspelt field names, references and globs. Pure.
 */

/**
 * Edit distance counting an insertion, deletion, substitution or swap of two adjacent characters
 * as one edit (optimal string alignment), since a swap ("nmae", "prnue") is the commonest typo.
 * Returns `limit + 1` as soon as the distance is known to exceed `limit`.
 */
function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidate closest to `input`, when it is close enough to be a plausible typo
 * (at most a third of the input's length, and at least one edit, is allowed).
 * Ties go to the earlier candidate so the hint is deterministic.
 */
export function suggestClosest(input: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(input.length / 3));
  const lowered = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (candidate === input) continue;
    const d = candidate.toLowerCase() === lowered ? 0.5 : editDistance(lowered, candidate.toLowerCase(), limit);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * The `count` candidates nearest to `input` by edit distance (ties in candidate order), however far:
 * what a message names when the list of what is allowed is too long to print whole.
 */
export function nearestNames(input: string, candidates: readonly string[], count: number): string[] {
  const lowered = input.toLowerCase();
  return [...new Set(candidates)]
    .map((candidate, index) => ({ candidate, index, d: editDistance(lowered, candidate.toLowerCase()) }))
    .sort((a, b) => a.d - b.d || a.index - b.index)
    .slice(0, count)
    .map((x) => x.candidate);
}

/** ` (did you mean "x"?)`, or '' when nothing is close. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const s = suggestClosest(input, candidates);
  return s === undefined ? '' : ` (did you mean ${JSON.stringify(s)}?)`;
}

/** `a, b, c` — or `a, b, c, … (12 in all)` past `max` entries, so a message stays one line. */
export function formatList(items: readonly string[], max = 12): string {
  if (items.length === 0) return '(none)';
  if (items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')}, … (${items.length} in all)`;
}

/**
 * The key of `object` that is not one of `known` but reads as a typo of `wanted` ("rol" for
 * "role"), if any. A field that is "missing" because it was misspelt is then reported once, as
 * the unknown key with its "did you mean", not a second time as missing.
 */
export function findMisspeltKey(object: unknown, wanted: string, known: readonly string[]): string | undefined {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return undefined;
  // Asked of every item for each field it lacks (most items lack some): first, without building
  // anything, whether it has a key that is not known at all.
  let unknown = false;
  for (const key in object) if (!known.includes(key)) unknown = true;
  if (!unknown) return undefined;
  return Object.keys(object).find((key) => !known.includes(key) && suggestClosest(key, known) === wanted);
}
