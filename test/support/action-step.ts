/**
 * The Action's runner run in-process as a workflow step runs it (its inputs as the PS_* variables
 * action.yml sets, GITHUB_OUTPUT and RUNNER_TEMP as files), and a stand-in for the GitHub REST
 * API on loopback (comments, merged pull requests, branch heads).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, expect } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { parse } from 'yaml';
import { runAction, type ActionResult } from '../../src/action/run.js';
import { makeTempDir, REPO_ROOT } from '../e2e/cli-harness.js';
import { EXAMPLE_SECRET_ENV } from './example-secrets.js';

const action = parse(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
};

/** A stand-in for the GitHub REST API's issue comments: what a run created or updated. */
export class FakeGitHub {
  comments: { id: number; body: string; user: { login: string } }[] = [];
  requests: string[] = [];
  /** The pull request merged as the commit (GET /repos/…/commits/{sha}/pulls). */
  mergedPull: number | undefined = 7;
  /** The head commit of each branch (GET /repos/…/branches/{name}). */
  heads: Record<string, string> = {};
  /** Answer every request with this status (a token without pull-requests: write gets 403). */
  status = 200;
  private server: Server | undefined;
  url = '';
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        this.requests.push(
          `${req.method} ${req.url} ${req.headers.authorization === 'Bearer gh-token-for-test' ? 'auth' : 'NO AUTH'}`,
        );
        res.setHeader('content-type', 'application/json');
        if (this.status !== 200) {
          res.statusCode = this.status;
          return res.end('{"message":"Resource not accessible by integration"}');
        }
        const branch = /^\/repos\/[^/]+\/[^/]+\/branches\/([^/?]+)$/.exec(req.url ?? '');
        if (req.method === 'GET' && /^\/repos\/[^/]+\/[^/]+\/commits\/[^/]+\/pulls$/.test(req.url ?? ''))
          return res.end(
            JSON.stringify(
              this.mergedPull === undefined ? [] : [{ number: this.mergedPull, merged_at: '2026-11-28T10:00:00Z' }],
            ),
          );
        if (req.method === 'GET' && branch)
          return res.end(
            JSON.stringify({
              name: decodeURIComponent(branch[1]!),
              commit: { sha: this.heads[decodeURIComponent(branch[1]!)] ?? '0'.repeat(40) },
            }),
          );
        if (req.method === 'GET') return res.end(JSON.stringify(this.comments));
        const body = (JSON.parse(text) as { body: string }).body;
        if (req.method === 'POST')
          this.comments.push({ id: this.comments.length + 1, body, user: { login: 'github-actions[bot]' } });
        if (req.method === 'PATCH') this.comments.find((c) => req.url!.endsWith(`/comments/${c.id}`))!.body = body;
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }
  close(): Promise<void> {
    return new Promise((resolve) => this.server!.close(() => resolve()));
  }
}

function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  return {
    stream: new Writable({ write: (c: Buffer, _e, done) => (chunks.push(c.toString()), done()) }),
    text: () => chunks.join(''),
  };
}

/** Runs the action's runner in-process as a workflow step would, returning its outputs. */
export async function runStep(
  inputs: Record<string, string>,
  env: Record<string, string>,
  cwd: string,
): Promise<ActionResult & { outputs: Record<string, string>; stdout: string; stderr: string }> {
  const temp = makeTempDir('action-step');
  const outputFile = join(temp.dir, 'output');
  writeFileSync(outputFile, '');
  const stdout = sink();
  const stderr = sink();
  try {
    const result = await runAction({
      stdout: stdout.stream,
      stderr: stderr.stream,
      stdin: Readable.from([]),
      env: {
        NO_COLOR: '1',
        GITHUB_OUTPUT: outputFile,
        RUNNER_TEMP: temp.dir,
        PS_COMMAND: inputs.command ?? '',
        PS_PATHS: inputs.paths ?? action.inputs.paths!.default!,
        PS_ARGS: inputs.args ?? '',
        PS_COMMENT: inputs.comment ?? 'false',
        PS_FAIL_ON_DRIFT: inputs['fail-on-drift'] ?? 'true',
        PS_REVIEWED_PLAN: inputs['reviewed-plan'] ?? '',
        PS_GITHUB_TOKEN: 'gh-token-for-test',
        ...EXAMPLE_SECRET_ENV,
        ...env,
      },
      cwd,
      signals: new EventEmitter(),
      exit: () => undefined,
    });
    const outputs = Object.fromEntries(
      readFileSync(outputFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    // The saved plan lives in RUNNER_TEMP: check it before the directory goes.
    if (outputs['plan-json']) expect(existsSync(outputs['plan-json'])).toBe(true);
    return { ...result, outputs, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    temp.remove();
  }
}

/**
 * The workflow commands the GitHub runner would take from this output: it reads a line at a
 * time (ended by LF, CR or CR LF); a line is a command when, trimmed of leading white space, it
 * is `::name…::…`, or else when it holds `##[name…]` anywhere (the older form). The runner
 * compares with .NET's culture-aware StartsWith and IndexOf, which skip default-ignorable and
 * format characters (`\u00AD::x` starts with `::` for it): the model drops them before it looks,
 * so it counts every line that passes the runner's first check (a stricter judge than the
 * runner's own parser, which then cuts the name at a fixed offset).
 */
export function runnerCommands(output: string): { name: string; line: string }[] {
  const out: { name: string; line: string }[] = [];
  for (const raw of output.split(/\r\n|\r|\n/)) {
    const compared = raw.replace(/[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu, '');
    const line = compared.replace(/^[\s\u0085]+/, '');
    if (line.startsWith('::') && line.indexOf('::', 2) >= 0) {
      out.push({ name: line.slice(2, line.indexOf('::', 2)).split(' ')[0]!, line: raw });
      continue;
    }
    const v1 = compared.indexOf('##[');
    if (v1 >= 0 && compared.indexOf(']', v1) >= 0)
      out.push({ name: compared.slice(v1 + 3, compared.indexOf(']', v1)).split(' ')[0]!, line: raw });
  }
  return out;
}

/** What a suite of Action runs shares: an emulator, a fake GitHub API, a pull request's event and the environment naming them. */
export interface ActionSuite {
  readonly emulator: Emulator;
  readonly github: FakeGitHub;
  readonly env: Record<string, string>;
  readonly temp: { dir: string; remove: () => void };
  /** A manifest directory holding one org.yaml, and an empty job summary beside it. */
  scratch(name: string, orgYaml: string): { dir: string; summary: string };
}

/**
 * Starts, for one describe block, an emulator with an owner `token`, a fake GitHub API and the
 * event of pull request `pr` (its number and head commit), and stops them after it; `setup` may
 * seed the emulator first.
 */
export function useActionSuite(
  token: string,
  prefix: string,
  pr: { number: number; sha: string },
  setup?: (emulator: Emulator) => Promise<unknown>,
): ActionSuite {
  const temp = makeTempDir(prefix);
  let emulator: Emulator | undefined;
  let github: FakeGitHub | undefined;
  let env: Record<string, string> | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, tokens: [{ token, role: 'owner' }] });
    await setup?.(emulator);
    github = new FakeGitHub();
    await github.start();
    const event = join(temp.dir, 'event.json');
    writeFileSync(event, JSON.stringify({ pull_request: { number: pr.number, head: { sha: pr.sha } } }));
    env = {
      PLATFORM_API_URL: emulator.url,
      PLATFORM_TOKEN: token,
      GITHUB_EVENT_PATH: event,
      GITHUB_REPOSITORY: 'acme/manifests',
      GITHUB_API_URL: github.url,
    };
  });
  afterAll(async () => {
    await github?.close();
    await emulator?.close();
    temp.remove();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the Action suite starts before the first test');
    return value;
  };
  return {
    get emulator() {
      return started(emulator);
    },
    get github() {
      return started(github);
    },
    get env() {
      return started(env);
    },
    temp,
    scratch(name, orgYaml) {
      const dir = join(temp.dir, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'org.yaml'), orgYaml);
      const summary = join(temp.dir, `${name}-summary.md`);
      writeFileSync(summary, '');
      return { dir, summary };
    },
  };
}
