/**
 * The update mask a PATCH of the contract takes, from its body schema (DESIGN.md §2, §6 rev 4):
 * `*`, or a comma-separated list of the body's fields and of the members of its object fields
 * (`oidc.clientId`), and of the secret paths a mask may name (`x-secret-mask-paths`). The
 * contract states it as a pattern on `updateMask`; this derives it, so that a test can hold the
 * two together and a field added to the contract is added to its mask.
 */
type Json = Record<string, unknown>;

export function updateMaskPattern(doc: Json, patchSchemaName: string): string {
  const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
  const resolve = (s: Json): Json => {
    let out = s;
    while (typeof out.$ref === 'string') out = schemas[(out.$ref as string).split('/').pop()!]!;
    if (Array.isArray(out.anyOf) && !out.properties) {
      const branch = (out.anyOf as Json[]).find((b) => b.type !== 'null');
      if (branch) return resolve(branch);
    }
    return out;
  };
  const body = schemas[patchSchemaName]!;
  const paths: string[] = [];
  for (const [field, schema] of Object.entries((body.properties as Record<string, Json> | undefined) ?? {})) {
    paths.push(field);
    const r = resolve(schema);
    if (r.type === 'object' && r.properties)
      for (const member of Object.keys(r.properties as Json)) paths.push(`${field}.${member}`);
  }
  for (const secret of (body['x-secret-mask-paths'] as string[] | undefined) ?? [])
    if (!paths.includes(secret)) paths.push(secret);
  const alt = paths.map((p) => p.replaceAll('.', '\\.')).join('|');
  return `^(\\*|(${alt})(,(${alt}))*)$`;
}

/** Sets every PATCH's updateMask pattern of the document from its body schema. */
export function setUpdateMaskPatterns(doc: Json): void {
  for (const item of Object.values(doc.paths as Record<string, Json>)) {
    const patch = item.patch as Json | undefined;
    const ref = (
      ((patch?.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json'] as Json | undefined
    )?.schema as Json | undefined;
    if (!patch || typeof ref?.$ref !== 'string') continue;
    const pattern = updateMaskPattern(doc, (ref.$ref as string).split('/').pop()!);
    for (const p of (patch.parameters as Json[] | undefined) ?? [])
      if (p.name === 'updateMask' || p.name === 'update_mask') p.schema = { type: 'string', pattern };
  }
}
