/**
 * The big org of the process benchmarks, as both sides of an empty plan: the emulator seed and
 * the manifests in git that describe it exactly. At scale 1 it is the org of issues 14 and 61:
 * 10,001 resources (the org, 300 groups — 3% —, 3,000 identities each with a `claimMatch` — 30% —,
 * 5,000 role bindings — 50% —, 1,500 repos — 15% —, 200 subscriptions — 2% —) in 11 files of
 * about 1 MB; scale 10 is ten times each (101 files). Written in one of two styles: `flow`, as
 * the README, docs/manifests.md and `init` write manifests (`claimMatch: {issuer: …, subject: …}`,
 * `- {identity: ci-bot, role: viewer}`), or `block`, every mapping on lines of its own.
 */
import { BUILTIN_ROLE_NAMES } from '../src/model/kinds.js';
import type { SeedDocument, SeedGroup } from '../src/emulator/index.js';

const TEAMS_PER_SCALE = 10;
const SUBGROUPS = 29;
export const ORG = 'bench';

export interface BigOrg {
  seed: SeedDocument;
  files: { file: string; text: string }[];
  resources: number;
}

/** How the manifests are written (see above). */
export type ManifestStyle = 'flow' | 'block';
export const MANIFEST_STYLES: readonly ManifestStyle[] = ['flow', 'block'];

export function buildBigOrg(scale = 1, style: ManifestStyle = 'flow'): BigOrg {
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
        claimMatch: {
          issuer: 'https://token.actions.githubusercontent.com',
          subject: `repo:bench/${path.replace('/', '-')}-${k}:ref:refs/heads/main`,
        },
      })),
      repos: Array.from({ length: 5 }, (_, k) => ({ name: `repo-${k}`, description: `Repo ${k} of ${path}` })),
      roleBindings: Array.from({ length: bindings }, (_, k) => ({
        identity: `id-${k % 10}`,
        role: BUILTIN_ROLE_NAMES[Math.floor(k / 10) + (k % 2) * 2]!,
      })),
      subscriptions: i % 3 !== 2 ? [{ sink: `https://hooks.example/${i}` }] : [],
    };
  };
  const teams: SeedGroup[] = [];
  for (let t = 0; t < TEAMS_PER_SCALE * scale; t++) {
    const team = group(`team-${t}`, `team-${t}`);
    team.groups = Array.from({ length: SUBGROUPS }, (_, s) => group(`sub-${s}`, `team-${t}/sub-${s}`));
    teams.push(team);
  }
  const files = [
    { file: 'org.yaml', text: `apiVersion: platform-sync/v1\norg:\n  name: ${ORG}\n  description: Benchmark org\n` },
  ];
  for (const team of teams) {
    files.push({
      file: `${team.name}.yaml`,
      text: `apiVersion: platform-sync/v1\norg:\n  name: ${ORG}\n  groups:\n${emitGroup(team, '    ', style)}`,
    });
  }
  let resources = 1;
  const count = (g: SeedGroup): void => {
    resources += 1 + g.identities!.length + g.repos!.length + g.roleBindings!.length + g.subscriptions!.length;
    for (const sub of g.groups ?? []) count(sub);
  };
  for (const t of teams) count(t);
  return { seed: { orgs: [{ name: ORG, description: 'Benchmark org', groups: teams }] }, files, resources };
}

/** A group as YAML in the given style. */
function emitGroup(g: SeedGroup, indent: string, style: ManifestStyle): string {
  const flow = style === 'flow';
  const i = `${indent}  `;
  const lines = [`${indent}- name: ${g.name}`, `${i}description: ${g.description}`];
  lines.push(`${i}identities:`);
  for (const id of g.identities!) {
    lines.push(`${i}  - name: ${id.name}`, `${i}    description: ${id.description}`);
    const { issuer, subject } = id.claimMatch!;
    if (flow) lines.push(`${i}    claimMatch: {issuer: "${issuer}", subject: "${subject}"}`);
    else lines.push(`${i}    claimMatch:`, `${i}      issuer: ${issuer}`, `${i}      subject: ${subject}`);
  }
  lines.push(`${i}repos:`);
  for (const r of g.repos!) lines.push(`${i}  - name: ${r.name}`, `${i}    description: ${r.description}`);
  lines.push(`${i}roleBindings:`);
  for (const b of g.roleBindings!) {
    if (flow) lines.push(`${i}  - {identity: ${b.identity}, role: ${b.role}}`);
    else lines.push(`${i}  - identity: ${b.identity}`, `${i}    role: ${b.role}`);
  }
  if (g.subscriptions!.length > 0) {
    lines.push(`${i}subscriptions:`);
    for (const s of g.subscriptions!) lines.push(`${i}  - sink: ${s.sink}`);
  }
  let text = `${lines.join('\n')}\n`;
  if (g.groups && g.groups.length > 0)
    text += `${i}groups:\n${g.groups.map((sub) => emitGroup(sub, `${i}  `, style)).join('')}`;
  return text;
}
