/**
 * The one door out (DESIGN.md §8 rev 4, STYLE.md 14). Everything the CLI writes — to stdout, to stderr, and to files (saved plans, exports, the job
 * summary) — goes through one {@link Output}. Once a session knows the API token, the output
 * redacts it (src/io/redact.ts) from every piece of text before it leaves the process: the
 * token may come back inside API data (a description someone set to it), and no renderer,
 * message or file then has to remember to redact on its own.
 */
import { escapeWorkflowLog } from './escape.js';
import { redactAll } from './redact.js';
import { appendUserFile, writeUserFile } from './write-file.js';

/** A place the CLI writes text to. Each `write` is redacted whole, so a token never spans two. */
export interface OutputStream {
  write(text: string): void;
  /** A terminal (for colour, prompts and the live progress line). */
  readonly isTTY: boolean;
  /** The terminal's width when it is one. */
  readonly columns: number | undefined;
}

/**
 * The CLI's writers. Invariant: after `addSecret(s)`, no text written through `stdout`,
 * `stderr`, or returned by `redact` contains `s` (subject to redactSecret's own rules).
 */
export interface Output {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  /** Text for a file the CLI writes, redacted like the streams. */
  redact(text: string): string;
  /** Redacts `secret` from now on (the token, once the session has resolved it), in each of its forms (redact.ts). */
  addSecret(secret: string): void;
  /** Appends text to a file (the job summary, the Action's outputs), redacted like the streams; a failure is a UserError naming the file. */
  appendToFile(path: string, text: string, what?: string): void;
  /** Writes a whole file (a SARIF report), redacted like the streams, atomically (io/write-file.ts); a failure is a UserError naming `what`. */
  writeFile(path: string, text: string, what: string, options?: { mode?: number; exclusive?: boolean }): void;
}

/** An Output over two Node streams (process.stdout and process.stderr in the CLI). */
export function createOutput(
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
  options: { workflowLog?: boolean } = {},
): Output {
  const secrets: string[] = [];
  const redact = (text: string): string => redactAll(text, secrets);
  // In a GitHub Actions job the streams are the job's log: no line of them may be a workflow command.
  const out = options.workflowLog === true ? (text: string): string => escapeWorkflowLog(redact(text)) : redact;
  const wrap = (stream: typeof stdout): OutputStream => ({
    write: (text) => void stream.write(out(text)),
    get isTTY() {
      return stream.isTTY === true;
    },
    get columns() {
      return stream.columns;
    },
  });
  return {
    stdout: wrap(stdout),
    stderr: wrap(stderr),
    redact,
    appendToFile: (path, text, what = 'the text') => appendUserFile(path, text, what, redact),
    writeFile: (path, text, what, options = {}) => writeUserFile(path, text, what, { ...options, redact }),
    addSecret: (secret) => {
      if (secret && !secrets.includes(secret)) secrets.push(secret);
    },
  };
}
