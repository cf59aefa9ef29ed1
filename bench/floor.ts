/**
 * The floor of a plan process (issue 28), run as a fresh process by plan-process.ts:
 * `node floor.js <manifest dir> <api url>` (token in PLATFORM_TOKEN). It does only what any
 * reconciler must: start, read and parse every manifest file with the fastest YAML reader among
 * platform-sync's dependencies (js-yaml, values only: no positions, no checks), find the org, read
 * every list page of it (the first page of each kind, then the rest at once with `skip`) over
 * one connection pool (undici, 64 connections) and JSON.parse every page. No model, no
 * validation, no plan. Prints what it read, so that the bench can check it read the whole org.
 * Without an API URL (`node floor.js <manifest dir>`) it stops after the manifests: the floor of
 * `platform-sync validate` (node start and js-yaml's values of the same files, no positions, no
 * checks), which the bench runs in turns with validate.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { Pool } from 'undici';

/** The org's listings (DESIGN.md §2): the plural of each envelope, and how it is scoped to the org. */
const LISTINGS: readonly { path: string; plural: string; perOrg?: boolean }[] = [
  { path: '/iam/v2/groups', plural: 'groups' },
  { path: '/iam/v2/identities', plural: 'identities' },
  { path: '/iam/v2/roles', plural: 'roles' },
  { path: '/iam/v2/roleBindings', plural: 'roleBindings' },
  { path: '/registry/v2/repos', plural: 'repos' },
  { path: '/registry/v2/tags', plural: 'tags' },
  { path: '/events/v2/subscriptions', plural: 'subscriptions' },
  { path: '/iam/v2/identityProviders', plural: 'identityProviders' },
  { path: '/iam/v2/externalGroupRoleMappings', plural: 'externalGroupRoleMappings' },
  { path: '/iam/v2/accountAssociations', plural: 'accountAssociations' },
  { path: '/iam/v2/terms', plural: 'termsAcceptances', perOrg: true },
];
const PAGE = 200;

async function main(): Promise<void> {
  const [dir, url] = process.argv.slice(2);
  if (!dir) throw new Error('usage: floor <manifest dir> [<api url>]');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  let orgName = '';
  await Promise.all(
    files.map(async (f) => {
      const doc = load(await readFile(join(dir, f), 'utf8')) as { org?: { name?: string } };
      if (!orgName && typeof doc?.org?.name === 'string') orgName = doc.org.name;
    }),
  );
  if (!url) {
    process.stdout.write(JSON.stringify({ files: files.length, org: orgName }));
    return;
  }
  const pool = new Pool(url, { connections: 64, pipelining: 1 });
  const headers = { authorization: `Bearer ${process.env.PLATFORM_TOKEN ?? ''}` };
  const getJson = async (path: string): Promise<Record<string, unknown>> => {
    const res = await pool.request({ method: 'GET', path, headers });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`GET ${path}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const roots = (await getJson(`/iam/v2/groups?name=${encodeURIComponent(orgName)}&page_size=${PAGE}`)).groups as {
    uid: string;
  }[];
  const orgUid = roots.find((g) => !g.uid.includes('/'))!.uid;
  let items = 0;
  await Promise.all(
    LISTINGS.map(async (l) => {
      const base = l.perOrg
        ? `${l.path}/${orgUid}?page_size=${PAGE}`
        : `${l.path}?uidp.descendants_of=${orgUid}&page_size=${PAGE}`;
      const first = await getJson(base);
      const total = Number(first.totalCount);
      const pages = [first];
      const rest = [];
      for (let skip = PAGE; skip < total; skip += PAGE) rest.push(getJson(`${base}&skip=${skip}`));
      pages.push(...(await Promise.all(rest)));
      for (const p of pages) items += (p[l.plural] as unknown[]).length;
    }),
  );
  await pool.close();
  process.stdout.write(JSON.stringify({ files: files.length, items }));
}

main().catch((err) => {
  process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
  process.exitCode = 1;
});
