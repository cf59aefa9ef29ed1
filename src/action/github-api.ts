/**
 * The Action's calls to the job's GitHub API (GITHUB_API_URL, the github-token input): the pull
 * request of this run or the one merged as its commit, the plan's (or apply's) one comment that
 * later runs update, and whether a reviewed apply still runs for its branch's head.
 */
import { existsSync } from 'node:fs';
import { escapeControl, escapeHtml } from '../io/escape.js';
import { readTextSyncBounded } from '../io/read-file.js';

export const COMMENT_MARKER = '<!-- platform-sync-plan -->';
/** The first line of the apply's comment on the merged pull request (updated in place, as the plan's). */
export const APPLY_COMMENT_MARKER = '<!-- platform-sync-apply -->';
/** Who writes the comment with the workflow's own GITHUB_TOKEN (the `comment-author` input overrides it). */
export const DEFAULT_COMMENT_AUTHOR = 'github-actions[bot]';
/** GitHub refuses comments over 65,536 characters; the plan view cuts itself well below. */
const MAX_COMMENT_CHARS = 65_000;

/** The pull request of this run's event, if it is one: its number and head commit. */
export function pullRequestOf(env: NodeJS.ProcessEnv): { number: number; sha: string } | undefined {
  if (!env.GITHUB_EVENT_PATH || !existsSync(env.GITHUB_EVENT_PATH)) return undefined;
  const event = JSON.parse(readTextSyncBounded(env.GITHUB_EVENT_PATH, { maxBytes: 64 * 1024 * 1024 })) as {
    pull_request?: { number?: unknown; head?: { sha?: unknown } };
  };
  const number = event.pull_request?.number;
  if (typeof number !== 'number') return undefined;
  const sha = event.pull_request?.head?.sha;
  return { number, sha: typeof sha === 'string' ? sha.slice(0, 7) : '' };
}

/**
 * One call to the job's GitHub API (GITHUB_API_URL), with the github-token input when there is
 * one; a call that hangs ends after 30 s, so a stalled API never holds the job.
 */
function githubApi(env: NodeJS.ProcessEnv, method: string, path: string, payload?: unknown): Promise<Response> {
  const api = (env.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, '');
  const token = (env.PS_GITHUB_TOKEN ?? '').trim();
  return fetch(`${api}${path}`, {
    method,
    headers: {
      accept: 'application/vnd.github+json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: payload === undefined ? undefined : JSON.stringify(payload),
    signal: AbortSignal.timeout(30_000),
  });
}

/** The pull request merged as this commit (GET /repos/…/commits/{sha}/pulls), if any. */
export async function mergedPullRequestOf(env: NodeJS.ProcessEnv): Promise<number | undefined> {
  const sha = (env.GITHUB_SHA ?? '').trim();
  const repo = (env.GITHUB_REPOSITORY ?? '').trim();
  if (!sha || !repo) return undefined;
  const res = await githubApi(env, 'GET', `/repos/${repo}/commits/${encodeURIComponent(sha)}/pulls`);
  if (!res.ok) throw new Error(`GitHub API GET /repos/${repo}/commits/${sha}/pulls: HTTP ${res.status}`);
  const pulls = (await res.json()) as { number?: unknown; merged_at?: unknown }[];
  const merged = Array.isArray(pulls)
    ? pulls.find((p) => typeof p.number === 'number' && p.merged_at !== null)
    : undefined;
  return merged?.number as number | undefined;
}

/** The comment body: the marker, the plan (or why there is none), and the error output when it failed. */
export function commentBody(markdown: string, stderr: string, exitcode: number): string {
  const parts = [COMMENT_MARKER];
  if (exitcode === 1) {
    parts.push('### platform-sync plan failed', '');
    if (markdown.trim() !== '') parts.push(markdown.trimEnd(), '');
    if (stderr.trim() !== '') parts.push('<pre>', escapeHtml(stderr.trimEnd()), '</pre>');
  } else {
    parts.push(markdown.trimEnd());
  }
  const body = escapeControl(parts.join('\n'));
  return body.length > MAX_COMMENT_CHARS
    ? `${body.slice(0, MAX_COMMENT_CHARS)}\n\n… (cut: the full plan is in the job summary)`
    : body;
}

/** Creates the plan comment on the pull request, or updates the one an earlier run made. */
export async function postComment(
  env: NodeJS.ProcessEnv,
  pr: number,
  body: string,
  marker: string = COMMENT_MARKER,
): Promise<'created' | 'updated'> {
  const repo = env.GITHUB_REPOSITORY;
  if (!repo || !(env.PS_GITHUB_TOKEN ?? '').trim())
    throw new Error('cannot comment: GITHUB_REPOSITORY or the github-token input is not set');
  const call = async (method: string, path: string, payload?: unknown): Promise<unknown> => {
    const res = await githubApi(env, method, path, payload);
    if (res.status === 403 || res.status === 401) {
      throw new Error(
        `cannot ${method === 'GET' ? 'read' : 'write'} the pull request's comments (GitHub API ${method} ${path}: HTTP ${res.status}): ` +
          'the github-token lacks the "pull-requests: write" permission; add `permissions: { contents: read, pull-requests: write }` to the job (or pass a github-token that has it), or set comment: false',
      );
    }
    if (!res.ok) throw new Error(`GitHub API ${method} ${path}: HTTP ${res.status}`);
    return res.json();
  };
  // Only a comment this action's own identity wrote is ours to edit: anyone can post one that
  // starts with the marker.
  const author = (env.PS_COMMENT_AUTHOR ?? '').trim() || DEFAULT_COMMENT_AUTHOR;
  let existing: number | undefined;
  for (let page = 1; page <= 50 && existing === undefined; page++) {
    const comments = (await call('GET', `/repos/${repo}/issues/${pr}/comments?per_page=100&page=${page}`)) as {
      id: number;
      body?: string;
      user?: { login?: string };
    }[];
    existing = comments.find((c) => c.body?.startsWith(marker) && c.user?.login === author)?.id;
    if (comments.length < 100) break;
  }
  if (existing !== undefined) {
    await call('PATCH', `/repos/${repo}/issues/comments/${existing}`, { body });
    return 'updated';
  }
  await call('POST', `/repos/${repo}/issues/${pr}/comments`, { body });
  return 'created';
}

/**
 * Why a reviewed apply must not run now, if it must not (DESIGN.md §4): the commit it runs for
 * is not the head of its branch any more, so a re-run of an old apply job (same commit, same
 * artifact) would undo what later merges did. Read from the GitHub API with the github-token
 * (contents: read is enough); what cannot be confirmed is refused too.
 */
export async function reviewedApplyProblem(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const sha = (env.GITHUB_SHA ?? '').trim();
  const branch = (env.GITHUB_REF_NAME ?? '').trim();
  const repo = (env.GITHUB_REPOSITORY ?? '').trim();
  if (!sha || !branch || !repo)
    return 'cannot tell which commit of which branch this apply runs for (GITHUB_SHA, GITHUB_REF_NAME and GITHUB_REPOSITORY are set in every GitHub Actions job)';
  let head: unknown;
  try {
    const res = await githubApi(env, 'GET', `/repos/${repo}/branches/${encodeURIComponent(branch)}`);
    if (!res.ok)
      return `cannot read the head of branch ${branch} to confirm this apply is for the newest merge (GitHub API HTTP ${res.status}); give the job \`contents: read\` (the github-token input)`;
    head = ((await res.json()) as { commit?: { sha?: unknown } }).commit?.sha;
  } catch (err) {
    return `cannot read the head of branch ${branch} to confirm this apply is for the newest merge (${(err as Error).message})`;
  }
  if (typeof head !== 'string' || !/^[0-9a-f]{7,64}$/i.test(head))
    return `the GitHub API answered no commit for the head of branch ${branch}`;
  if (head.toLowerCase() !== sha.toLowerCase()) {
    return `this apply runs for commit ${sha}, but the head of ${branch} is now ${head}: applying this older reviewed plan would undo what later merges did. Nothing was changed; the apply of the newest merge applies its own reviewed plan (or run the workflow's plan-and-apply of ${branch})`;
  }
  return undefined;
}
