/**
 * Whether a pattern is valid RE2 (DESIGN.md §2), behind a seam: the model (and the pure planner
 * that imports it) does no loading of its own, so the checker — re2js, loaded on first use — is
 * registered by the layers that read patterns (src/util/re2.ts, imported by the manifest loader
 * and the emulator).
 */
type PatternChecker = (pattern: string) => string | undefined;

let checker: PatternChecker | undefined;

export function registerPatternChecker(fn: PatternChecker): void {
  checker = fn;
}

/** Why a pattern is not a valid RE2 expression, or undefined when it is. */
export function patternProblem(pattern: string): string | undefined {
  if (checker === undefined) throw new Error('internal error: no RE2 pattern checker is registered (import src/util/re2.js)');
  return checker(pattern);
}
