/**
 * GitHub Actions expressions (`${{ … }}` and `if:`), evaluated as the runner evaluates them:
 * literals, contexts with property access (`a.b`, `a['b']`, `a.*.b`), the operators `!`, `==`,
 * `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||` (which return an operand, not a boolean), comparisons
 * that coerce types and ignore the case of strings, and the functions `always()`, `success()`,
 * `failure()`, `cancelled()`, `contains`, `startsWith`, `endsWith`, `format`, `join`, `toJSON`,
 * `fromJSON` and `hashFiles` — which, as on GitHub, sees only files inside GITHUB_WORKSPACE
 * (a pattern outside it matches nothing). Anything else is an error, never a silent ''.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

export type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

export interface ExpressionScope {
  contexts: Record<string, Value>;
  /** The job's status so far, for success()/failure()/always(). */
  status: 'success' | 'failure' | 'cancelled';
  /** GITHUB_WORKSPACE: what hashFiles sees. */
  workspace: string;
}

type Token = { kind: 'num' | 'str' | 'id' | 'op'; text: string; value?: Value };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'") {
      let s = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new Error(`unterminated string in ${text}`);
        if (text[i] === "'" && text[i + 1] === "'") (s += "'"), (i += 2);
        else if (text[i] === "'") break;
        else s += text[i++];
      }
      i++;
      tokens.push({ kind: 'str', text: s, value: s });
    } else if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const m = /^-?[0-9]+(\.[0-9]+)?/.exec(text.slice(i))!;
      tokens.push({ kind: 'num', text: m[0], value: Number(m[0]) });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(i))!;
      tokens.push({ kind: 'id', text: m[0] });
      i += m[0].length;
    } else {
      const op = ['==', '!=', '<=', '>=', '&&', '||'].find((o) => text.startsWith(o, i)) ?? c;
      const operators = ['==', '!=', '<=', '>=', '&&', '||', '!', '<', '>', '(', ')', '[', ']', '.', ',', '*'];
      if (!operators.includes(op)) throw new Error(`unexpected ${JSON.stringify(c)} in ${text}`);
      tokens.push({ kind: 'op', text: op });
      i += op.length;
    }
  }
  return tokens;
}

function truthy(v: Value | undefined): boolean {
  return !(
    v === false ||
    v === null ||
    v === undefined ||
    v === 0 ||
    v === '' ||
    (typeof v === 'number' && Number.isNaN(v))
  );
}

function toNumber(v: Value | undefined): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return v.trim() === '' ? 0 : Number(v);
  return NaN;
}

/** GitHub's loose equality: strings ignore case; mixed types compare as numbers. */
function equals(a: Value | undefined, b: Value | undefined): boolean {
  const an = a === undefined ? null : a;
  const bn = b === undefined ? null : b;
  if (typeof an === 'string' && typeof bn === 'string') return an.toLowerCase() === bn.toLowerCase();
  if (typeof an === typeof bn && (typeof an !== 'object' || an === null)) return an === bn;
  if (typeof an === 'object' && an !== null) return an === bn;
  if (typeof bn === 'object' && bn !== null) return false;
  return toNumber(an) === toNumber(bn);
}

export function toText(v: Value | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v, null, 2);
}

function globToRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      out += '.*';
      i++;
      if (pattern[i + 1] === '/') i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

function filesUnder(root: string, dir = root, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (dir === root && (name === '.git' || name === 'node_modules')) continue;
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) filesUnder(root, path, out);
    else if (stat?.isFile()) out.push(relative(root, path).split(sep).join('/'));
  }
  return out;
}

/** hashFiles as the runner computes it: only files inside the workspace; '' when none matches. */
export function hashFiles(workspace: string, patterns: string[]): string {
  const root = realpathSync(workspace);
  const files = filesUnder(root);
  const matched = new Set<string>();
  for (const raw of patterns) {
    let pattern = raw;
    if (isAbsolute(pattern)) {
      const rel = relative(root, pattern);
      // The runner ignores what lies outside GITHUB_WORKSPACE.
      if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) continue;
      pattern = rel.split(sep).join('/');
    }
    const re = globToRegExp(pattern.replace(/^\.\//, ''));
    for (const f of files) if (re.test(f)) matched.add(f);
  }
  if (matched.size === 0) return '';
  const all = createHash('sha256');
  for (const f of [...matched].sort())
    all.update(
      createHash('sha256')
        .update(readFileSync(join(root, f)))
        .digest(),
    );
  return all.digest('hex');
}

class Parser {
  private i = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly scope: ExpressionScope,
    private readonly source: string,
  ) {}
  parse(): Value {
    const v = this.or();
    if (this.i !== this.tokens.length) throw new Error(`unexpected ${this.tokens[this.i]!.text} in ${this.source}`);
    return v;
  }
  private peek(text: string): boolean {
    const t = this.tokens[this.i];
    return t !== undefined && t.kind === 'op' && t.text === text;
  }
  private expect(text: string): void {
    if (!this.peek(text)) throw new Error(`expected ${text} in ${this.source}`);
    this.i++;
  }
  private or(): Value {
    let left = this.and();
    while (this.peek('||')) {
      this.i++;
      const right = this.and();
      left = truthy(left) ? left : right;
    }
    return left;
  }
  private and(): Value {
    let left = this.comparison();
    while (this.peek('&&')) {
      this.i++;
      const right = this.comparison();
      left = truthy(left) ? right : left;
    }
    return left;
  }
  private comparison(): Value {
    let left = this.unary();
    for (;;) {
      const op = ['==', '!=', '<', '<=', '>', '>='].find((o) => this.peek(o));
      if (op === undefined) return left;
      this.i++;
      const right = this.unary();
      if (op === '==') left = equals(left, right);
      else if (op === '!=') left = !equals(left, right);
      else {
        const [a, b] =
          typeof left === 'string' && typeof right === 'string'
            ? [left.toLowerCase(), right.toLowerCase()]
            : [toNumber(left), toNumber(right)];
        left = op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
      }
    }
  }
  private unary(): Value {
    if (this.peek('!')) {
      this.i++;
      return !truthy(this.unary());
    }
    return this.postfix(this.primary());
  }
  private primary(): Value {
    const t = this.tokens[this.i++];
    if (t === undefined) throw new Error(`unexpected end of ${this.source}`);
    if (t.kind === 'str' || t.kind === 'num') return t.value!;
    if (t.kind === 'op' && t.text === '(') {
      const v = this.or();
      this.expect(')');
      return v;
    }
    if (t.kind !== 'id') throw new Error(`unexpected ${t.text} in ${this.source}`);
    if (t.text === 'true') return true;
    if (t.text === 'false') return false;
    if (t.text === 'null') return null;
    if (this.peek('(')) {
      this.i++;
      const args: Value[] = [];
      while (!this.peek(')')) {
        args.push(this.or());
        if (!this.peek(')')) this.expect(',');
      }
      this.i++;
      return this.call(t.text, args);
    }
    if (!(t.text in this.scope.contexts)) throw new Error(`unknown context ${t.text} in ${this.source}`);
    return this.scope.contexts[t.text]!;
  }
  private postfix(base: Value): Value {
    let v: Value | undefined = base;
    let spread = false;
    for (;;) {
      if (this.peek('.')) {
        this.i++;
        if (this.peek('*')) {
          this.i++;
          v = Array.isArray(v) ? v : v !== null && typeof v === 'object' ? Object.values(v) : [];
          spread = true;
          continue;
        }
        const t = this.tokens[this.i++];
        if (t?.kind !== 'id') throw new Error(`expected a property name in ${this.source}`);
        v = this.property(v, t.text, spread);
      } else if (this.peek('[')) {
        this.i++;
        const key = this.or();
        this.expect(']');
        v = this.property(v, toText(key), spread);
      } else return v === undefined ? null : v;
    }
  }
  private property(v: Value | undefined, name: string, spread: boolean): Value | undefined {
    if (spread && Array.isArray(v))
      return v.map((x) => (x !== null && typeof x === 'object' && !Array.isArray(x) ? (x[name] ?? null) : null));
    if (v === null || v === undefined || typeof v !== 'object' || Array.isArray(v)) return null;
    const key = Object.keys(v).find((k) => k.toLowerCase() === name.toLowerCase());
    return key === undefined ? null : v[key];
  }
  private call(name: string, args: Value[]): Value {
    switch (name.toLowerCase()) {
      case 'always':
        return true;
      case 'success':
        return this.scope.status === 'success';
      case 'failure':
        return this.scope.status === 'failure';
      case 'cancelled':
        return this.scope.status === 'cancelled';
      case 'contains': {
        const [hay, needle] = args;
        if (Array.isArray(hay)) return hay.some((x) => equals(x, needle));
        return toText(hay).toLowerCase().includes(toText(needle).toLowerCase());
      }
      case 'startswith':
        return toText(args[0]).toLowerCase().startsWith(toText(args[1]).toLowerCase());
      case 'endswith':
        return toText(args[0]).toLowerCase().endsWith(toText(args[1]).toLowerCase());
      case 'format':
        return toText(args[0]).replace(/\{(\d+)\}/g, (_m, n: string) => toText(args[Number(n) + 1]));
      case 'join':
        return Array.isArray(args[0])
          ? args[0].map(toText).join(args[1] === undefined ? ',' : toText(args[1]))
          : toText(args[0]);
      case 'tojson':
        return JSON.stringify(args[0], null, 2);
      case 'fromjson':
        return JSON.parse(toText(args[0])) as Value;
      case 'hashfiles':
        return hashFiles(this.scope.workspace, args.map(toText));
      default:
        throw new Error(`unknown function ${name}() in ${this.source}`);
    }
  }
}

/** The value of one expression (the text inside `${{ }}`, or an `if:`). */
export function evaluate(expression: string, scope: ExpressionScope): Value {
  return new Parser(tokenize(expression), scope, expression).parse();
}

/** A string with every `${{ … }}` replaced by its value as text. */
export function interpolate(text: string, scope: ExpressionScope): string {
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_m, expression: string) => toText(evaluate(expression, scope)));
}

/**
 * Whether a step or job runs: its `if:` (with or without `${{ }}`), and — as GitHub adds it when
 * the condition names no status function — `success() &&` in front.
 */
export function shouldRun(condition: string | undefined, scope: ExpressionScope): boolean {
  if (condition === undefined || condition.trim() === '') return scope.status === 'success';
  const bare = condition.trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1');
  const withStatus = /\b(always|success|failure|cancelled)\s*\(/.test(bare) ? bare : `success() && (${bare})`;
  return truthy(evaluate(withStatus, scope));
}
