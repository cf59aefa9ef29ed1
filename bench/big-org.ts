/**
 * The big org of the process benchmarks, as both sides of an empty plan: the emulator seed and
 * the manifests in git that describe it exactly. At scale 1 it is the org of issue 14: 10,001
 * resources (the org, 300 groups, 3,000 identities, 5,000 role bindings, 1,500 repos, 200
 * subscriptions) in 21 files of about 1.1 MB; scale 10 is ten times each (201 files).
 */
import { BUILTIN_ROLE_NAMES } from '../src/model/kinds.js';
import type { SeedDocument, SeedGroup } from '../src/emulator/index.js';

const TEAMS_PER_SCALE = 20;
const SUBGROUPS = 14;
export const ORG = 'bench';

export interface BigOrg {
  seed: SeedDocument;
  files: { file: string; text: string }[];
  resources: number;
}

export function buildBigOrg(scale = 1): BigOrg {
  let index = 0;
  const group = (name: string, path: string): SeedGroup => {
    const i = index++;
    const bindings = i % 3 === 2 ? 16 : 17; // 5,000 over 300 groups
    return {
      name,
      description: `Group ${path}`,
      identities: Array.from({ length: 10 }, (_, k) => ({
        name: `id-${k}`,
        description: `CI of ${path}/id-${k}`,
        claimMatch: { issuer: 'https://token.actions.githubusercontent.com', subject: `repo:bench/${path.replace('/', '-')}-${k}:ref:refs/heads/main` },
      })),
      repos: Array.from({ length: 5 }, (_, k) => ({ name: `repo-${k}`, description: `Repo ${k} of ${path}` })),
      roleBindings: Array.from({ length: bindings }, (_, k) => ({ identity: `id-${k % 10}`, role: BUILTIN_ROLE_NAMES[Math.floor(k / 10) + (k % 2) * 2]! })),
      subscriptions: i % 3 !== 2 ? [{ sink: `https://hooks.example/${i}` }] : [],
    };
  };
  const teams: SeedGroup[] = [];
  for (let t = 0; t < TEAMS_PER_SCALE * scale; t++) {
    const team = group(`team-${t}`, `team-${t}`);
    team.groups = Array.from({ length: SUBGROUPS }, (_, s) => group(`sub-${s}`, `team-${t}/sub-${s}`));
    teams.push(team);
  }
  const files = [{ file: 'org.yaml', text: `apiVersion: platform-sync/v1\norg:\n  name: ${ORG}\n  description: Benchmark org\n` }];
  for (const team of teams) {
    files.push({ file: `${team.name}.yaml`, text: `apiVersion: platform-sync/v1\norg:\n  name: ${ORG}\n  groups:\n${emitGroup(team, '    ')}` });
  }
  let resources = 1;
  const count = (g: SeedGroup): void => {
    resources += 1 + g.identities!.length + g.repos!.length + g.roleBindings!.length + g.subscriptions!.length;
    for (const sub of g.groups ?? []) count(sub);
  };
  for (const t of teams) count(t);
  return { seed: { orgs: [{ name: ORG, description: 'Benchmark org', groups: teams }] }, files, resources };
}

/** A group as block YAML, the way people write manifests. */
function emitGroup(g: SeedGroup, indent: string): string {
  const i = `${indent}  `;
  const lines = [`${indent}- name: ${g.name}`, `${i}description: ${g.description}`];
  lines.push(`${i}identities:`);
  for (const id of g.identities!) {
    lines.push(`${i}  - name: ${id.name}`, `${i}    description: ${id.description}`, `${i}    claimMatch:`);
    lines.push(`${i}      issuer: ${id.claimMatch!.issuer}`, `${i}      subject: ${id.claimMatch!.subject}`);
  }
  lines.push(`${i}repos:`);
  for (const r of g.repos!) lines.push(`${i}  - name: ${r.name}`, `${i}    description: ${r.description}`);
  lines.push(`${i}roleBindings:`);
  for (const b of g.roleBindings!) lines.push(`${i}  - identity: ${b.identity}`, `${i}    role: ${b.role}`);
  if (g.subscriptions!.length > 0) {
    lines.push(`${i}subscriptions:`);
    for (const s of g.subscriptions!) lines.push(`${i}  - sink: ${s.sink}`);
  }
  let text = `${lines.join('\n')}\n`;
  if (g.groups && g.groups.length > 0) text += `${i}groups:\n${g.groups.map((sub) => emitGroup(sub, `${i}  `)).join('')}`;
  return text;
}
