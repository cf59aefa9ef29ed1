/**
 * Checks HTTP exchanges against an OpenAPI 3.1 document, the way an outside tool would read it:
 * the operation a method and path name (a `{uid}` may hold `/`, as the document says), the
 * query parameters it declares, its request body schema, and the schema of the response its
 * status selects (`200`, else `default`). Ajv validates; every problem is named.
 *
 * It shares nothing with the emulator's own validators (src/emulator/contract-validators.ts): it
 * compiles the document itself, once per document object and worker (conformanceOf).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

type Json = Record<string, unknown>;

export interface Exchange {
  method: string;
  /** Path with its query. */
  url: string;
  requestBody: string;
  status: number;
  responseBody: string;
}

const pointer = (...parts: string[]): string =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** A schema that is nothing but a reference to another of the document: checked as that one. */
function loneLocalRef(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const keys = Object.keys(schema);
  const ref = (schema as Json).$ref;
  return keys.length === 1 && typeof ref === 'string' && ref.startsWith('#/') ? ref.slice(2) : undefined;
}

const checkers = new WeakMap<Json, OpenApiConformance>();

/**
 * The checker of a document, made once per document object: what ajv compiled for one test file
 * serves the next in the same worker (compiling the contract's schemas was most of a fuzz file's time).
 */
export function conformanceOf(doc: Json): OpenApiConformance {
  let checker = checkers.get(doc);
  if (!checker) checkers.set(doc, (checker = new OpenApiConformance(doc)));
  return checker;
}

export class OpenApiConformance {
  // inlineRefs off: a component referenced from many operations compiles once, as its own function.
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, inlineRefs: false });
  private readonly templates: string[];

  constructor(private readonly doc: Json) {
    this.ajv.addSchema(doc, 'openapi');
    // Most specific first: a sub-resource (`…/{uid}/readme`) before an item, an item before its collection.
    this.templates = Object.keys(doc.paths as Json).sort(
      (a, b) => b.split('/').length - a.split('/').length || b.length - a.length,
    );
  }

  /** The path template a concrete path falls under. */
  template(path: string): string | undefined {
    return this.templates.find((t) => {
      const i = t.indexOf('{uid}');
      if (i < 0) return t === path;
      const prefix = t.slice(0, i);
      const suffix = t.slice(i + '{uid}'.length);
      return path.startsWith(prefix) && path.endsWith(suffix) && path.length > prefix.length + suffix.length;
    });
  }

  /** The operationId an exchange names, or undefined. */
  operationOf(method: string, url: string): string | undefined {
    const t = this.template(new URL(url, 'http://x').pathname);
    const op = t ? ((this.doc.paths as Record<string, Json>)[t]![method.toLowerCase()] as Json | undefined) : undefined;
    return op?.operationId as string | undefined;
  }

  /**
   * The validator of the schema at a pointer into the document (`paths/~1repos/get/…`). A schema
   * that is only a `$ref` is checked as the one it names: the answers of sixty operations
   * reference some fifty components, each compiled once rather than once per operation and status.
   */
  validatorAt(schemaPointer: string): ValidateFunction | undefined {
    let at = schemaPointer;
    for (let hops = 0; hops < 20; hops++) {
      const schema = at
        .split('/')
        .reduce<unknown>(
          (o, p) =>
            o === null || typeof o !== 'object'
              ? undefined
              : (o as Json)[p.replaceAll('~1', '/').replaceAll('~0', '~')],
          this.doc,
        );
      const ref = loneLocalRef(schema);
      if (ref === undefined) break;
      at = ref;
    }
    return this.ajv.getSchema(`openapi#/${at}`);
  }

  private validate(schemaPointer: string, value: unknown, what: string): string[] {
    const v = this.validatorAt(schemaPointer);
    if (!v) return [`${what}: no schema at #/${schemaPointer}`];
    if (v(value)) return [];
    return (v.errors ?? [])
      .slice(0, 5)
      .map((e) => `${what}: ${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  }

  /** What is wrong with one exchange ([] when it conforms). */
  check(x: Exchange): string[] {
    const url = new URL(x.url, 'http://x');
    const where = `${x.method} ${url.pathname}${url.search}`;
    const t = this.template(url.pathname);
    if (!t) return [`${where}: no path of the document matches`];
    const item = (this.doc.paths as Record<string, Json>)[t]!;
    const method = x.method.toLowerCase();
    const op = item[method] as Json | undefined;
    // A 405 for a method the path lacks is the contract kept, not broken.
    if (!op)
      return x.status === 405 ? [] : [`${where}: ${x.method} is not an operation of ${t} (answered ${x.status})`];
    const problems: string[] = [];
    const params = [
      ...((item.parameters as Json[] | undefined) ?? []),
      ...((op.parameters as Json[] | undefined) ?? []),
    ];
    const declared = new Set(params.filter((p) => p.in === 'query').map((p) => p.name as string));
    // Like the body below: a request the server refused (4xx) may be wrong on purpose; one it took must conform.
    if (x.status < 400)
      for (const name of url.searchParams.keys())
        if (!declared.has(name)) problems.push(`${where}: query parameter ${name} is not declared`);
    const opPointer = pointer('paths', t, method);
    if (op.requestBody && x.status < 500) {
      let body: unknown;
      try {
        body = x.requestBody === '' ? undefined : JSON.parse(x.requestBody);
      } catch {
        problems.push(`${where}: request body is not JSON`);
      }
      // A request the server refused (4xx) may be wrong on purpose; one it took must conform.
      if (x.status === 200)
        problems.push(
          ...this.validate(`${opPointer}/requestBody/content/application~1json/schema`, body, `${where} request`),
        );
    }
    const responses = op.responses as Record<string, Json>;
    const key = Object.hasOwn(responses, String(x.status)) ? String(x.status) : 'default';
    const response = responses[key];
    if (!response) return [...problems, `${where}: status ${x.status} is not a response of the operation`];
    const content = response.content as Json | undefined;
    if (!content) {
      if (x.responseBody !== '') problems.push(`${where}: answered a body where the document says none`);
      return problems;
    }
    let body: unknown;
    try {
      body = JSON.parse(x.responseBody);
    } catch {
      return [...problems, `${where}: response body is not JSON`];
    }
    problems.push(
      ...this.validate(
        `${opPointer}/responses/${key}/content/application~1json/schema`,
        body,
        `${where} response ${x.status}`,
      ),
    );
    return problems;
  }
}
