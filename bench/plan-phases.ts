/**
 * Run as a fresh process by plan-process.ts: `node plan-phases.js <manifest dir> <api url>`
 * (token in PLATFORM_TOKEN). Does what `platform-sync plan` does, one phase after another, and
 * prints the CPU and wall milliseconds of each phase as JSON: the CPU breakdown of a plan process,
 * with the CPU of the main thread alone where the system tells it (the rest is helper threads).
 * Module loading loads the CLI's own module graph from dist/src, so it counts what `plan` loads,
 * though not as the bin does (from its single-file bundle: less).
 */
import { threadCpuMs } from './thread-cpu.js';

const started = process.cpuUsage();
let last = started;
let lastMain = threadCpuMs();
let lastWall = performance.now();
const phases: Record<string, number> = {};
const mains: Record<string, number> = {};
const walls: Record<string, number> = {};
function phase(name: string): void {
  const now = process.cpuUsage();
  phases[name] = (phases[name] ?? 0) + (now.user - last.user + now.system - last.system) / 1000;
  last = now;
  const main = threadCpuMs();
  if (main !== undefined && lastMain !== undefined) mains[name] = (mains[name] ?? 0) + main - lastMain;
  lastMain = main;
  walls[name] = performance.now() - lastWall;
  lastWall = performance.now();
}
// Node itself: everything before this module ran (bootstrap, this file's own load).
phases['node start'] = (started.user + started.system) / 1000;
if (lastMain !== undefined) mains['node start'] = lastMain;
walls['node start'] = lastWall;

async function main(): Promise<void> {
  const [dir, url] = process.argv.slice(2);
  if (!dir || !url) throw new Error('usage: plan-phases <manifest dir> <api url>');
  await import('../src/cli/main.js');
  const manifest = await import('../src/manifest/index.js');
  const { listManifestFiles, readManifestFiles } = await import('../src/manifest/read-files.js');
  const { parseManifestText, DEFAULT_MAX_FILE_BYTES } = await import('../src/manifest/parse-documents.js');
  const { checkDocumentSchema } = await import('../src/manifest/schema.js');
  const { resolveDesiredState } = await import('../src/manifest/resolve.js');
  const { createClient } = await import('../src/api/client.js');
  const { readLiveState } = await import('../src/live/index.js');
  const { managedSubResources } = await import('../src/pipeline.js');
  const { plan } = await import('../src/plan/index.js');
  const { renderPlan } = await import('../src/views/plan.js');
  phase('module loading');

  const listed = await listManifestFiles([dir]);
  const read = await readManifestFiles(listed, DEFAULT_MAX_FILE_BYTES);
  phase('read files');
  const parsed = read.texts.map((t) => parseManifestText(t.file, t.text));
  phase('parse YAML');
  const documents = parsed.flatMap((p) => p.documents);
  const problems = documents.flatMap((doc) => (manifest.nullListsAsEmpty(doc.value), checkDocumentSchema(doc)));
  phase('schema check');
  const resolved = resolveDesiredState(documents, { files: listed.files, complete: true });
  phase('resolve');
  const desired = resolved.state;
  if (!desired || problems.length > 0 || parsed.some((p) => p.diagnostics.length > 0))
    throw new Error('the benchmark manifests are not valid');

  const client = createClient({ baseUrl: url, token: process.env.PLATFORM_TOKEN });
  const live = await readLiveState(client, {
    org: { name: desired.org.name },
    subResources: managedSubResources(desired),
    expected: desired.resources,
  });
  await client.close();
  phase('live read (client CPU)');
  const p = plan(desired, live);
  phase('plan()');
  const text = renderPlan(p, 'text', { color: false });
  phase('render');
  process.stdout.write(JSON.stringify({ phases, mains, walls, steps: p.steps.length, textBytes: text.length }));
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exitCode = 1;
});
