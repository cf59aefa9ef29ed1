/**
 * Run as a fresh process by plan-process.ts: `node live-build.js <api url> <org name>` (token in
 * PLATFORM_TOKEN). Builds the live model of the org from listings read before (the build of
 * readLiveState, alone: issue 28's goal for it), once, in a process that has not built one yet:
 * cold, as in a plan process, where each kind is built once. The heap is collected first, so
 * the figure is the build's own work and the collections of its own garbage. Prints
 * `{"cpuMs": …, "mainThreadCpuMs": …, "resources": …}` (the main thread's share where the system tells it).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createClient } from '../src/api/client.js';
import { LiveResourceBuilder } from '../src/live/build-live-state.js';
import { findOrg, orgListQuery, readBuiltinRoles } from '../src/live/read-live-state.js';
import { CREATE_ORDER } from '../src/model/kinds.js';
import { threadCpuMs } from './thread-cpu.js';
import type { ApiObject } from '../src/api/types.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

async function main(): Promise<void> {
  const [url, orgName] = process.argv.slice(2);
  if (!url || !orgName) throw new Error('usage: live-build <api url> <org name>');
  const client = createClient({ baseUrl: url, token: process.env.PLATFORM_TOKEN });
  const org = await findOrg(client, { name: orgName });
  if (org === null) throw new Error(`no org ${orgName}`);
  const builtinRoles = (await readBuiltinRoles(client)).roles;
  const listings = new Map<string, readonly ApiObject[]>();
  for (const kind of CREATE_ORDER) listings.set(kind, (await client.list(kind, orgListQuery(kind, org.uid))).items);
  await client.close();
  collectGarbage();
  const before = process.cpuUsage();
  const mainBefore = threadCpuMs();
  const builder = new LiveResourceBuilder(org, builtinRoles);
  for (const kind of CREATE_ORDER) builder.add(kind, listings.get(kind)!);
  const built = builder.finish();
  const used = process.cpuUsage(before);
  const mainAfter = threadCpuMs();
  const mainThreadCpuMs = mainBefore !== undefined && mainAfter !== undefined ? mainAfter - mainBefore : undefined;
  process.stdout.write(
    JSON.stringify({ cpuMs: (used.user + used.system) / 1000, mainThreadCpuMs, resources: built.resources.length }),
  );
}

main().catch((err) => {
  process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
  process.exitCode = 1;
});
