/** A repo's readme through the client's generic sub-resource calls, as tests set and read it. */
import type { ApiClient } from '../../src/api/types.js';
import { subResourceFields } from '../../src/model/kinds.js';

const README = subResourceFields('repo').find((f) => f.name === 'readme')!.subResource;

export function getReadme(client: ApiClient, repoUid: string): Promise<string> {
  return client.readSubResource('repo', repoUid, README);
}

export function updateReadme(client: ApiClient, repoUid: string, text: string): Promise<void> {
  return client.writeSubResource('repo', repoUid, README, text);
}
