/**
 * RE2, as the service (written in Go) reads patterns (DESIGN.md §2): `(?i)`, `[[:alnum:]]`,
 * `(?P<name>…)` are valid; lookaround and backreferences are not. re2js (a pure-JavaScript port
 * of RE2) is loaded on the first pattern, so a run whose manifests hold none never loads it.
 * The model checks patterns with it (identity-relationships.ts): loading waits for the first one.
 */
import { lazyRequire } from './lazy-require.js';

const re2 = lazyRequire<typeof import('re2js')>('re2js');
const answers = new Map<string, string | true>();
const MAX_ANSWERS = 1_000;
const compiledPatterns = new Map<string, ReturnType<ReturnType<typeof re2>['RE2JS']['compile']>>();

/** Why a pattern is not valid RE2 (the parser's reason), or undefined. Answers are kept (bounded). */
export function re2Problem(pattern: string): string | undefined {
  const known = answers.get(pattern);
  if (known !== undefined) return known === true ? undefined : known;
  let answer: string | true;
  try {
    re2().RE2JS.compile(pattern);
    answer = true;
  } catch (err) {
    answer = (err as Error).message.replace(/^error parsing regexp: /, '');
  }
  if (answers.size >= MAX_ANSWERS) answers.clear();
  answers.set(pattern, answer);
  return answer === true ? undefined : answer;
}

/** Whether `pattern` (RE2) matches the whole of `text`, as the service matches a claim; false for an invalid pattern. */
export function re2FullMatch(pattern: string, text: string): boolean {
  if (re2Problem(pattern) !== undefined) return false;
  let compiled = compiledPatterns.get(pattern);
  if (!compiled) {
    if (compiledPatterns.size >= MAX_ANSWERS) compiledPatterns.clear();
    compiledPatterns.set(pattern, (compiled = re2().RE2JS.compile(pattern)));
  }
  return compiled.matcher(text).matches();
}
