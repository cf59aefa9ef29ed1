/**
 * The bearer tokens an emulator accepts: checking them, and reading them from a file so that
 * several tokens (owner, viewer, scoped) can be configured without putting any on a command
 * line. No message here ever contains a token: entries are named by their position.
 */
import { FileReadError, readTextSyncBounded } from '../io/read-file.js';
import { lazyRequire } from '../util/lazy-require.js';
import { UserError } from '../model/errors.js';
import type { EmulatorToken } from './exchange.js';

/** The CLI loads this module to read options; yaml only when there is a tokens file. */
const yaml = lazyRequire<typeof import('yaml')>('yaml');

/** A group uid as the emulator makes them: a 40-hex root, then `/16-hex` per level. */
const GROUP_UID_PATTERN = /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/;
const TOKEN_KEYS = ['token', 'role', 'scope'];

/** Problems of one token entry, each prefixed with `where` (never with the token itself). */
function tokenProblems(t: unknown, where: string): string[] {
  if (t === null || typeof t !== 'object' || Array.isArray(t))
    return [`${where}: must be an object {token, role, scope?}`];
  const o = t as Record<string, unknown>;
  const problems = Object.keys(o)
    .filter((k) => !TOKEN_KEYS.includes(k))
    .map((k) => `${where}: unknown field ${JSON.stringify(k)} (allowed: ${TOKEN_KEYS.join(', ')})`);
  if (typeof o.token !== 'string' || o.token.trim() === '') problems.push(`${where}.token: must be a non-empty string`);
  else if (/\s/.test(o.token))
    problems.push(`${where}.token: must not contain whitespace (it is sent as "Bearer <token>")`);
  if (o.role !== 'owner' && o.role !== 'viewer')
    problems.push(`${where}.role: must be owner or viewer, got ${JSON.stringify(o.role)}`);
  if (o.scope !== undefined && (typeof o.scope !== 'string' || !GROUP_UID_PATTERN.test(o.scope)))
    problems.push(
      `${where}.scope: must be a group uid (40 lowercase hex, then /16 hex per level), got ${JSON.stringify(o.scope)}`,
    );
  return problems;
}

/**
 * Checks a token list: each entry well-formed, no token given twice. Throws a UserError
 * listing every problem, tokens referred to by position only.
 */
export function checkTokens(tokens: readonly unknown[], source = 'emulator tokens'): EmulatorToken[] {
  const problems: string[] = [];
  const first = new Map<string, number>();
  tokens.forEach((t, i) => {
    problems.push(...tokenProblems(t, `[${i}]`));
    const token = (t as { token?: unknown } | null)?.token;
    if (typeof token !== 'string' || token === '') return;
    const earlier = first.get(token);
    if (earlier !== undefined)
      problems.push(`[${i}].token: is the same token as [${earlier}]; each token has one role and scope`);
    else first.set(token, i);
  });
  if (problems.length > 0)
    throw new UserError(
      'EMULATOR_TOKENS_INVALID',
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  return tokens.map((t) => {
    const { token, role, scope } = t as EmulatorToken;
    return scope === undefined ? { token, role } : { token, role, scope };
  });
}

/**
 * Reads a YAML/JSON tokens file: a list of `{token, role: owner|viewer, scope?: <group uid>}`.
 * The file is a secret; its content is never echoed, even when it does not parse.
 */
export function readTokensFile(path: string): EmulatorToken[] {
  let text: string;
  try {
    text = readTextSyncBounded(path, { maxBytes: 1024 * 1024 });
  } catch (err) {
    throw new UserError(
      'EMULATOR_TOKENS_UNREADABLE',
      `cannot read emulator tokens file ${err instanceof FileReadError ? err.message : path}`,
    );
  }
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (err) {
    // The YAML error quotes the offending line, which may hold a token: give the position only.
    const pos = (err as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    throw new UserError(
      'EMULATOR_TOKENS_INVALID',
      `emulator tokens file ${path} is not valid YAML/JSON${pos ? ` (line ${pos.line}, column ${pos.col})` : ''}`,
    );
  }
  if (!Array.isArray(doc) || doc.length === 0)
    throw new UserError(
      'EMULATOR_TOKENS_INVALID',
      `emulator tokens file ${path} must be a non-empty list of {token, role: owner|viewer, scope?: <group uid>}`,
    );
  return checkTokens(doc, `emulator tokens file ${path}`);
}
