/**
 * RE2, as the service (written in Go) reads patterns (DESIGN.md §2): `(?i)`, `[[:alnum:]]`,
 * `(?P<name>…)` are valid; lookaround and backreferences are not. re2js (a pure-JavaScript port
 * of RE2) is loaded on the first pattern, so a run whose manifests hold none never loads it.
 * The model checks patterns with it (identity-relationships.ts): loading waits for the first one.
 */
import { boundedMemo } from './bounded-memo.js';
import { lazyRequire } from './lazy-require.js';

const re2 = lazyRequire<typeof import('re2js')>('re2js');
type Compiled = ReturnType<ReturnType<typeof re2>['RE2JS']['compile']>;

/** What re2js's parser prefixes its reasons with; the reason alone is shown. */
const PARSER_PREFIX = 'error parsing regexp: ';

/** A pattern compiled, or the parser's reason it is not RE2. Kept (bounded): manifests repeat patterns. */
const compile = boundedMemo<Compiled | string>(1_000, (pattern) => {
  try {
    return re2().RE2JS.compile(pattern);
  } catch (err) {
    const message = (err as Error).message;
    return message.startsWith(PARSER_PREFIX) ? message.slice(PARSER_PREFIX.length) : message;
  }
});

/** Why a pattern is not valid RE2 (the parser's reason), or undefined. */
export function re2Problem(pattern: string): string | undefined {
  const compiled = compile(pattern);
  return typeof compiled === 'string' ? compiled : undefined;
}

/** Whether `pattern` (RE2) matches the whole of `text`, as the service matches a claim; false for an invalid pattern. */
export function re2FullMatch(pattern: string, text: string): boolean {
  const compiled = compile(pattern);
  return typeof compiled !== 'string' && compiled.matcher(text).matches();
}
