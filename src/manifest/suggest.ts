/**
 * "Did you mean" hints for misspelt field names, references and globs. Pure.
 */

/** Levenshtein distance, with an early exit once every cell of a row exceeds `limit`. */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
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
