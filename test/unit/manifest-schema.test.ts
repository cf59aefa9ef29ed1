/**
 * schemas/manifest.schema.json: a draft 2020-12 schema that editors can use, kept in step with
 * the shared model (capabilities, name pattern, prune kinds) and documented on every property.
 */
import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { MANIFEST_API_VERSION, findManifestSchemaPath, readManifestSchema } from '../../src/manifest/index.js';
import { dirname, resolve } from 'node:path';
import {
  SCHEMA_VALIDATOR_DECLARATIONS,
  SCHEMA_VALIDATOR_MODULE,
  renderSchemaValidatorModule,
  renderValidatorDeclarations,
} from '../../src/manifest/generate-schemas.js';
import { PRUNE_KEYS } from '../../src/model/kinds.js';
import { CAPABILITIES, NAME_PATTERN_SOURCE } from '../../src/model/vocabulary.js';

type SchemaNode = Record<string, unknown>;

/** Every subschema that describes an object with properties, with its JSON pointer. */
function objectSchemas(node: unknown, pointer = '#'): { pointer: string; schema: SchemaNode }[] {
  if (typeof node !== 'object' || node === null) return [];
  const out: { pointer: string; schema: SchemaNode }[] = [];
  const schema = node as SchemaNode;
  if (schema.properties) out.push({ pointer, schema });
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'enum' || key === 'const' || key === 'required') continue;
    if (typeof value === 'object' && value !== null) out.push(...objectSchemas(value, `${pointer}/${key}`));
  }
  return out;
}

describe('manifest JSON Schema', () => {
  const schema = readManifestSchema();

  it('is draft 2020-12 with an $id and compiles under ajv strict mode', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(typeof schema.$id).toBe('string');
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    expect(() => ajv.compile(schema)).not.toThrow();
  });

  it('is checked by the precompiled validator generated from this very schema', async () => {
    const committed = await readFile(SCHEMA_VALIDATOR_MODULE, 'utf8');
    expect(
      committed === renderSchemaValidatorModule(schema),
      `${SCHEMA_VALIDATOR_MODULE} is stale; regenerate: npm run generate`,
    ).toBe(true);
    expect(await readFile(SCHEMA_VALIDATOR_DECLARATIONS, 'utf8')).toBe(
      renderValidatorDeclarations('schemas/manifest.schema.json'),
    );
  });

  it('closes every object and documents every property with a title and a description', () => {
    const objects = objectSchemas(schema);
    expect(objects.length).toBeGreaterThanOrEqual(10);
    for (const { pointer, schema: object } of objects) {
      expect(object.additionalProperties, pointer).toBe(false);
      for (const [name, property] of Object.entries(object.properties as Record<string, SchemaNode>)) {
        // A $ref property is documented by the definition it points at.
        const documented = property.$ref
          ? (schema.$defs as Record<string, SchemaNode>)[String(property.$ref).replace('#/$defs/', '')]!
          : property;
        expect(typeof documented.title, `${pointer}/properties/${name} title`).toBe('string');
        expect(typeof documented.description, `${pointer}/properties/${name} description`).toBe('string');
      }
    }
  });

  it('agrees with the shared model: capabilities, name pattern, apiVersion, prune kinds', () => {
    const defs = schema.$defs as Record<string, { properties: Record<string, SchemaNode> }>;
    const capabilities = defs.role!.properties.capabilities!.items as SchemaNode;
    // The service's catalog (src/service/capabilities.json), offered to editors as examples; the
    // catalog check itself is validate's, with the nearest names (DESIGN.md §2 rev 6).
    expect(capabilities.examples).toEqual([...CAPABILITIES]);
    expect(CAPABILITIES.length).toBe(153);
    for (const name of CAPABILITIES) expect(name).toMatch(new RegExp(capabilities.pattern as string));
    for (const kind of ['org', 'group', 'identity', 'role', 'repo']) {
      expect(defs[kind]!.properties.name!.pattern, kind).toBe(NAME_PATTERN_SOURCE);
    }
    expect((schema.properties as Record<string, SchemaNode>).apiVersion!.const).toBe(MANIFEST_API_VERSION);
    expect(Object.keys(defs.settings!.properties.prune!.properties as SchemaNode)).toEqual(Object.keys(PRUNE_KEYS));
  });

  it('gives editors examples for names, references, sinks, claims, capabilities and settings, each valid where it stands', () => {
    const withExamples = objectSchemas(schema).flatMap(({ pointer, schema: object }) =>
      Object.entries(object.properties as Record<string, SchemaNode>)
        .filter(([, property]) => Array.isArray(property.examples))
        .map(([name, property]) => ({ at: `${pointer}/properties/${name}`, property })),
    );
    const at = withExamples.map((e) => e.at.replace('#/$defs/', '').replace(/\/properties\//g, '.'));
    for (const expected of [
      'org.name',
      'group.name',
      'identity.name',
      'role.name',
      'repo.name',
      'subscription.sink',
      'roleBinding.identity',
      'roleBinding.role',
      'role.capabilities',
      'identity.claimMatch.issuer',
      'settings.prune',
      'settings.ignore',
    ]) {
      expect(at).toContain(expected);
    }
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    for (const { at: pointer, property } of withExamples) {
      const validate = ajv.compile(property);
      for (const example of property.examples as unknown[])
        expect(validate(example), `${pointer}: ${JSON.stringify(example)}`).toBe(true);
    }
  });

  it('is found by editors from the examples through the relative $schema path', async () => {
    for (const file of ['org.yaml', 'engineering.yaml', 'security.yaml']) {
      const first = (await readFile(`examples/acme/${file}`, 'utf8')).split('\n')[0]!;
      const relative = /^# yaml-language-server: \$schema=(.+)$/.exec(first)?.[1];
      expect(relative, file).toBeDefined();
      expect(resolve(dirname(resolve('examples/acme', file)), relative!)).toBe(findManifestSchemaPath());
    }
  });

  it('accepts the acme example documents as they are', async () => {
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    const validate = ajv.compile(schema);
    for (const file of ['org.yaml', 'engineering.yaml', 'security.yaml']) {
      const text = await readFile(`examples/acme/${file}`, 'utf8');
      expect(text.startsWith('# yaml-language-server: $schema=../../schemas/manifest.schema.json\n'), file).toBe(true);
      expect(validate(parse(text)), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});
