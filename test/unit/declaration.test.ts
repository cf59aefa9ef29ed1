/**
 * One declaration per field (src/model/kinds/declarations.ts): the manifest schema, the field
 * lists the descriptors are built from, and the descriptors themselves must all say what the
 * declaration says. (The TypeScript field types are held to it by the build: kinds.ts
 * `FieldTypesAgree`.) Each check names the command that brings a stale file back in step.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DECLARED_FIELDS_MODULE,
  MANIFEST_SCHEMA_FILE,
  renderDeclaredFieldsModule,
  renderManifestSchema,
} from '../../src/manifest/generate-schemas.js';
import { FIELD_DECLARATIONS } from '../../src/model/kinds/declarations.js';
import { DESCRIPTORS } from '../../src/model/kinds.js';
import type { FieldType, KindDescriptor } from '../../src/model/kind-descriptor.js';

type Json = Record<string, unknown>;
const declared = (kind: string): [string, Json][] =>
  Object.entries(
    (FIELD_DECLARATIONS as unknown as Record<string, { properties: Record<string, Json> }>)[kind]!.properties,
  );

/** The JSON type each field type reads a value as. */
const JSON_TYPE: Readonly<Record<FieldType, string>> = {
  string: 'string',
  stringSet: 'array',
  object: 'object',
  boolean: 'boolean',
  roleRef: 'string',
};

describe('one declaration per field', () => {
  it('declares every kind, and no kind that does not exist', () => {
    expect(Object.keys(FIELD_DECLARATIONS).sort()).toEqual(DESCRIPTORS.map((d) => d.kind).sort());
  });

  it(`${MANIFEST_SCHEMA_FILE} is the one the declaration gives`, () => {
    const committed = readFileSync(MANIFEST_SCHEMA_FILE, 'utf8');
    expect(
      committed === renderManifestSchema(),
      `${MANIFEST_SCHEMA_FILE} differs from the declaration; edit src/model/kinds/declarations.ts (fields) or src/manifest/manifest-declaration.ts (structure), then npm run generate`,
    ).toBe(true);
  });

  it(`${DECLARED_FIELDS_MODULE} is the one the declaration gives`, () => {
    const committed = readFileSync(DECLARED_FIELDS_MODULE, 'utf8');
    expect(committed === renderDeclaredFieldsModule(), `${DECLARED_FIELDS_MODULE} is stale; npm run generate`).toBe(
      true,
    );
  });

  for (const d of DESCRIPTORS as readonly KindDescriptor[]) {
    it(`${d.kind}: the descriptor's fields are the declared ones, in order, each read as its declared JSON type`, () => {
      expect(d.fields.map((f) => f.name)).toEqual(declared(d.kind).map(([name]) => name));
      for (const [name, schema] of declared(d.kind)) {
        const spec = d.fields.find((f) => f.name === name)!;
        expect(JSON_TYPE[spec.type], `${d.kind}.${name}`).toBe(schema.type);
      }
    });

    it(`${d.kind}: the API body fields are the declared ones (plus references and the kind's own)`, () => {
      const body = d.fields.filter((f) => !f.subResource && f.compared !== false).map((f) => f.apiName ?? f.name);
      const own = [...(d.references ?? []).map((r) => `${r}Uid`), ...(d.orgScopeField ? [d.orgScopeField] : [])];
      if (d.createBody) {
        // Its create body is made by the kind (terms: {documentIds}), from the declared fields.
        expect(d.api.createFields.length).toBeGreaterThan(0);
      } else {
        expect([...d.api.createFields].sort()).toEqual([...body, ...own].sort());
      }
      const updatable = new Set([...body, ...own, ...(d.secretPaths ?? [])]);
      for (const f of d.api.updatableFields)
        expect(updatable.has(f), `${d.kind}.${f} is updatable but not declared`).toBe(true);
      if (d.hasUpdate && d.references === undefined)
        for (const f of body) expect(d.api.updatableFields, `${d.kind}.${f}`).toContain(f);
      for (const f of d.exclusiveFields ?? []) expect(body, `${d.kind}: exclusive field ${f}`).toContain(f);
    });
  }

  it('the manifest schema holds every declared field of each kind the manifests declare, with the declared schema', () => {
    const schema = JSON.parse(readFileSync(MANIFEST_SCHEMA_FILE, 'utf8')) as {
      $defs: Record<string, { properties: Record<string, Json> }>;
    };
    // What the manifest says of a field for people (its title, description, examples) may be
    // worded per place (the org's name, a group's); what a value must be may not.
    const rules = (fieldSchema: Json) =>
      Object.fromEntries(
        Object.entries(JSON.parse(JSON.stringify(fieldSchema)) as Json).filter(
          ([k]) => !['title', 'description', 'examples'].includes(k),
        ),
      );
    for (const d of DESCRIPTORS) {
      // A values list (accepted terms) holds strings, not items with fields.
      if (!d.manifest || d.manifest.form === 'values') continue;
      // A group's fields are the org's and every child group's.
      const definitions = d.manifest.form === 'group' ? ['org', d.manifest.definition] : [d.manifest.definition];
      for (const definition of definitions) {
        const item = schema.$defs[definition]!;
        for (const [name, fieldSchema] of declared(d.kind)) {
          expect(item.properties[name], `${definition}.${name} is missing`).toBeDefined();
          expect(rules(item.properties[name]!), `${definition}.${name}`).toEqual(rules(fieldSchema));
        }
      }
    }
  });
});
