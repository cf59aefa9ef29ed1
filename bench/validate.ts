/**
 * Validation speed: a generated org of 10,000 resources over 20 files (three levels of groups,
 * identities with claim matches, custom roles, repos with readmes, bindings by sibling name, by
 * root path and to custom roles found by walking up), validated in memory and from disk.
 * Prints CPU milliseconds (process.cpuUsage); the target is well under 1 s. Also the cold start
 * of a fresh process validating examples/acme, against the same with the schema compiled by ajv
 * at run time (what the precompiled schema-validator.js saves on every CLI run).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadManifests, validateManifestTexts } from '../src/manifest/index.js';

const TARGET_RESOURCES = 10_000;
const TEAMS = 20;
const REPEATS = 5;

/** One file per team, each with subgroups; resources are added until the target is met exactly. */
export function generateManifestSet(target = TARGET_RESOURCES): { file: string; text: string }[] {
  const files: { file: string; text: string }[] = [
    {
      file: 'org.yaml',
      text: 'apiVersion: platform-sync/v1\norg:\n  name: bench\n  description: Generated org\n  identities:\n    - name: release-bot\n      claimMatch: {issuer: "https://token.actions.githubusercontent.com", subject: "repo:bench/app:ref:refs/heads/main"}\n  roles:\n    - name: releaser\n      capabilities: [repo.list, tag.create]\nsettings:\n  prune: true\n  protect: ["identity:release-bot"]\n',
    },
  ];
  let count = 3; // org, release-bot, releaser
  const take = () => (count < target ? (count++, true) : false);
  const section = (title: string, items: string[]) =>
    items.length > 0 ? `          ${title}:\n${items.join('')}` : '';
  const perTeam = Math.ceil((target - count) / TEAMS);
  for (let t = 0; t < TEAMS && count < target; t++) {
    const team = `team-${t}`;
    const teamEnd = Math.min(target, count + perTeam);
    take();
    const subgroups: string[] = [];
    for (let s = 0; count < teamEnd; s++) {
      take();
      const identities: string[] = [];
      const roles: string[] = [];
      const repos: string[] = [];
      const bindings: string[] = [];
      for (let i = 0; i < 12 && count < teamEnd && take(); i++) {
        identities.push(
          `            - name: bot-${i}\n              description: CI of ${team}/svc-${s}/bot-${i}\n              claimMatch: {issuer: "https://token.actions.githubusercontent.com", subject: "repo:bench/svc-${s}-${i}:ref:refs/heads/main"}\n`,
        );
      }
      if (count < teamEnd && take())
        roles.push('            - name: deployer\n              capabilities: [repo.list, repo.update, tag.list]\n');
      for (let i = 0; i < 12 && count < teamEnd && take(); i++) {
        repos.push(
          `            - name: repo-${i}\n              description: Repo ${i} of svc-${s}\n              readme: |\n                # repo-${i}\n\n                Built by bot-${i}.\n`,
        );
      }
      for (let i = 0; i < identities.length && count < teamEnd; i++) {
        if (roles.length > 0 && take()) bindings.push(`            - {identity: bot-${i}, role: deployer}\n`);
        if (count < teamEnd && take()) bindings.push(`            - {identity: bot-${i}, role: releaser}\n`);
      }
      if (count < teamEnd && take()) bindings.push('            - {identity: /release-bot, role: viewer}\n');
      subgroups.push(
        `        - name: svc-${s}\n${section('identities', identities)}${section('roles', roles)}${section('repos', repos)}${section('roleBindings', bindings)}`,
      );
    }
    const groups = subgroups.length > 0 ? `      groups:\n${subgroups.join('')}` : '';
    files.push({
      file: `${team}.yaml`,
      text: `apiVersion: platform-sync/v1\norg:\n  name: bench\n  groups:\n    - name: ${team}\n      description: Generated team\n${groups}`,
    });
  }
  return files;
}

function cpuMs(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/**
 * CPU ms of a fresh node process from its start until it has validated examples/acme (module
 * loading included); with `compileSchema`, it also compiles the manifest schema with ajv first.
 */
function measureColdStart(compileSchema: boolean): number {
  const manifest = new URL('../src/manifest/index.js', import.meta.url).href;
  const script = [
    `const m = await import(${JSON.stringify(manifest)});`,
    compileSchema
      ? "const { Ajv2020 } = await import('ajv/dist/2020.js'); new Ajv2020({ allErrors: true, verbose: true, strict: true, strictRequired: false, allowUnionTypes: true }).compile(m.readManifestSchema());"
      : '',
    "const r = await m.validateManifests(['examples/acme']);",
    "if (!r.state) throw new Error('examples/acme is invalid');",
    'const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000));',
  ].join('\n');
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`cold start failed: ${child.stderr}`);
  return Number(child.stdout);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export async function run(): Promise<void> {
  const docs = generateManifestSet();
  const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d.text), 0);

  let start = process.cpuUsage();
  const first = validateManifestTexts(docs);
  const firstMs = cpuMs(start);
  if (!first.state)
    throw new Error(
      `generated manifests are invalid:\n${first.diagnostics
        .slice(0, 5)
        .map((d) => d.message)
        .join('\n')}`,
    );
  const resources = first.state.resources.length;

  const inMemory: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    start = process.cpuUsage();
    validateManifestTexts(docs);
    inMemory.push(cpuMs(start));
  }

  const dir = await mkdtemp(join(tmpdir(), 'ps-bench-validate-'));
  const fromDisk: number[] = [];
  try {
    for (const d of docs) await writeFile(join(dir, d.file), d.text);
    for (let i = 0; i < REPEATS; i++) {
      start = process.cpuUsage();
      const state = await loadManifests([dir]);
      fromDisk.push(cpuMs(start));
      if (state.resources.length !== resources) throw new Error('disk and memory disagree');
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  // A stranger's manifest of thousands of unknown keys, each one a diagnostic with its place: the
  // time must grow with the keys, not with their square (a position found by reading the mapping
  // from its start for every key was ≈9 s for 45,000 keys).
  // The same keys in a file the fast reader leaves to `yaml` (an anchor in it), whose positions
  // are yaml's.
  const unknownKeys = (n: number, anchor: boolean) => [
    {
      file: 'keys.yaml',
      text: `apiVersion: platform-sync/v1\norg:\n  name: ${anchor ? '&n ' : ''}acme\n${Array.from({ length: n }, (_, i) => `  k${i}: x\n`).join('')}`,
    },
  ];
  const problemsCpu = (n: number, anchor = false) => {
    const set = unknownKeys(n, anchor);
    return median(
      Array.from({ length: 3 }, () => {
        const at = process.cpuUsage();
        if (validateManifestTexts(set).diagnostics.length !== n)
          throw new Error('expected one diagnostic per unknown key');
        return cpuMs(at);
      }),
    );
  };
  const fewProblems = problemsCpu(5_000);
  const manyProblems = problemsCpu(20_000);
  const fewYamlProblems = problemsCpu(5_000, true);
  const manyYamlProblems = problemsCpu(20_000, true);

  const cold = median(Array.from({ length: REPEATS }, () => measureColdStart(false)));
  const coldCompiling = median(Array.from({ length: REPEATS }, () => measureColdStart(true)));

  const mem = median(inMemory);
  const disk = median(fromDisk);
  process.stdout.write(
    [
      `manifest set: ${resources} resources, ${docs.length} files, ${(bytes / 1024).toFixed(0)} KiB`,
      `validateManifestTexts, first run in this process (yaml and resolver not yet optimised by the JIT): ${firstMs.toFixed(0)} ms CPU`,
      `validateManifestTexts, median of ${REPEATS}: ${mem.toFixed(0)} ms CPU (${((mem / resources) * 1000).toFixed(1)} µs per resource)`,
      `loadManifests from disk, median of ${REPEATS}: ${disk.toFixed(0)} ms CPU (disk/memory ratio ${(disk / mem).toFixed(2)})`,
      `cold start, fresh process validating examples/acme, median of ${REPEATS}: ${cold.toFixed(0)} ms CPU; compiling the schema with ajv at start instead: ${coldCompiling.toFixed(0)} ms (precompiled saves ${(coldCompiling - cold).toFixed(0)} ms, ratio ${(coldCompiling / cold).toFixed(2)})`,
      `target < 1000 ms CPU: ${Math.max(mem, disk) < 1000 ? 'met' : 'MISSED'} (${(1000 / Math.max(mem, disk)).toFixed(1)}x headroom)`,
      `one mapping of unknown keys, every one a diagnostic, median of 3: 5,000 keys ${fewProblems.toFixed(0)} ms CPU, 20,000 keys ${manyProblems.toFixed(0)} ms (×${(manyProblems / fewProblems).toFixed(1)} for ×4 the keys; target ≤ ×6, linear: ${manyProblems / fewProblems <= 6 ? 'met' : 'MISSED'})`,
      `  the same, read by yaml (an anchor in the file): ${fewYamlProblems.toFixed(0)} ms, ${manyYamlProblems.toFixed(0)} ms (×${(manyYamlProblems / fewYamlProblems).toFixed(1)}; target ≤ ×6: ${manyYamlProblems / fewYamlProblems <= 6 ? 'met' : 'MISSED'})`,
      '',
    ].join('\n'),
  );
}
