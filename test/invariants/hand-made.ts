/**
 * What an invariant case does behind the manifests' back (check-case.ts): people and tags made
 * by hand before the plan, and a hand edit made between a saved plan and its apply.
 */
import type { LiveState } from '../../src/model/resources.js';
import type { Harness } from './check-case.js';
import type { Extras, HandEdit } from './generators.js';
import type { Uids } from './render-manifest.js';

/** Does the hand-made extras: people with bindings, tags on repos, an unmanaged repo. */
export async function makeExtras(h: Harness, live: LiveState, extras: Extras): Promise<Uids> {
  const groups = live.resources.filter((r) => r.kind === 'group');
  const repos = live.resources.filter((r) => r.kind === 'repo');
  const humans: Uids['humans'] = [];
  for (const human of extras.humans) {
    const group = groups[human.group % groups.length]!;
    const created = await h.client.create('identity', group.uid, {
      name: human.name,
      claimMatch: { issuer: 'https://accounts.acme.dev', subject: human.name },
    });
    humans.push({ group: group.groupPath, name: human.name, uid: created.uid });
    await h.client.create('roleBinding', group.uid, {
      identityUid: created.uid,
      roleUid: live.builtinRoles[human.role]!,
    });
  }
  for (const at of extras.tags) {
    if (repos.length === 0) break;
    const repo = repos[at % repos.length]!;
    await h.client
      .create('tag', repo.uid, { name: `v${at}`, digest: `sha256:${String(at % 10).repeat(64)}` })
      .catch(() => undefined);
  }
  if (extras.handRepo !== undefined)
    await h.client.create('repo', groups[extras.handRepo % groups.length]!.uid, { name: 'hand-made' });
  const identity = new Map<string, string>();
  for (const r of live.resources)
    if (r.kind === 'identity')
      identity.set(r.groupPath === '' ? r.fields.name : `${r.groupPath}/${r.fields.name}`, r.uid);
  return { identity, humans };
}

/** A change by hand to one live resource of the org; returns the address the saved plan read it at. */
export async function makeHandEdit(h: Harness, live: LiveState, edit: HandEdit): Promise<string | undefined> {
  if (edit.op === 'none') return undefined;
  const candidates = live.resources.filter(
    (r) =>
      r.address !== 'org' &&
      (edit.op === 'describe'
        ? ['group', 'identity', 'repo', 'role'].includes(r.kind)
        : edit.op === 'delete'
          ? ['roleBinding', 'subscription', 'tag'].includes(r.kind)
          : r.kind === 'group'),
  );
  if (candidates.length === 0) return undefined;
  const target = candidates[edit.at % candidates.length]!;
  if (edit.op === 'describe')
    await h.client.update(target.kind, target.uid, { description: `by hand ${edit.at}` }, ['description']);
  else if (edit.op === 'delete') await h.client.delete(target.kind, target.uid);
  else {
    const created = await h.client
      .create('repo', target.uid, { name: `by-hand-${edit.at % 7}` })
      .catch(() => undefined);
    if (!created) return undefined;
    return `repo:${target.groupPath === '' ? '' : `${target.groupPath}/`}by-hand-${edit.at % 7}`;
  }
  return target.address;
}
