/**
 * What a CLI run may touch of the world, passed in rather than reached for (STYLE.md §13): its
 * output streams, standard input, environment, working directory and stop signals. The bin
 * passes the process's own ({@link processIo}); tests run `main(argv, io)` in-process with
 * their own streams and environment and read the exit code it returns.
 */
import type { Clock } from '../api/throttle.js';
import type { Output } from './output.js';

/** A stream the CLI writes to: a Node writable, and whether it is a terminal. */
export type CliWritable = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface CliIo {
  stdout: CliWritable;
  stderr: CliWritable;
  /** Where approval is read from (apply's question). */
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Where `--emulator` keeps its state and `export` looks for a project's schema. */
  cwd: string;
  /** Where SIGINT/SIGTERM arrive. */
  signals: {
    on(signal: 'SIGINT' | 'SIGTERM', listener: (signal: 'SIGINT' | 'SIGTERM') => void): unknown;
    off(signal: 'SIGINT' | 'SIGTERM', listener: (signal: 'SIGINT' | 'SIGTERM') => void): unknown;
  };
  /** Ends the run at once (a second Ctrl-C); only the process's own io exits the process. */
  exit(code: number): void;
  /**
   * Told each invite code `apply --invite-codes` keeps, before anything else could print it (the
   * GitHub Action masks it in the job's log). Optional: the CLI itself needs none.
   */
  onInviteCode?(code: string): void;
  /** What the API client's retry waits take time from (a test's virtual clock); the real clock if absent. */
  clock?: Clock;
  /**
   * Told when a command's action starts: not for `--help`, `--version` or a usage error. The bin
   * writes V8's code cache only after a run that ran one (src/cli/launch.ts): the cache of a
   * `--version` holds too little of what commands compile to be kept (review of issue 61).
   */
  onCommand?(): void;
}

/** The process's own streams, environment and signals: what `bin/platform-sync` runs with. */
export function processIo(): CliIo {
  // The reader may close the pipe early (`plan | head`, `--help | head -1`): what is still
  // written has nowhere to go. That ends nothing (DESIGN.md §5): the process finishes quietly
  // with the exit code it would have had, never a stack trace. Other stream errors still throw.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    signals: process,
    exit: (code) => process.exit(code),
  };
}

/** One run of the CLI: its io, the one Output every command writes through, and the exit code it sets. */
export interface CliContext extends CliIo {
  output: Output;
  /** Set by a command that finished; an error's code is main's to decide. */
  exitCode: number;
}
