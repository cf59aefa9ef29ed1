/**
 * The CLI entry: parse options, call the library, pick a renderer, set the exit code
 * (DESIGN.md §1, STYLE.md §6). Only this file decides how an error reaches the user.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { UserError } from '../model/errors.js';
import { findPackageFile, packageVersion } from '../io/package-file.js';
// Every command is registered up front (help and option parsing need them all), so command
// modules import only what registering needs. Their heavy dependencies — the API client
// (undici), saved-plan checks (ajv), the emulator — are imported inside the action that uses
// them: `validate` never loads them, ~60 ms less CPU per run.
import { registerInitCommand } from './commands/init.js';
import { registerEmulatorCommand } from './commands/emulator.js';
import { registerDriftCommand } from './commands/drift.js';
import { registerAdoptCommand } from './commands/adopt.js';
import { registerAuditCommand } from './commands/audit.js';
import { registerExportCommand } from './commands/export.js';
import { addHelpExamples } from './help-examples.js';
import { registerValidateCommand } from './commands/validate.js';
import { registerPlanCommand } from './commands/plan.js';
import { registerApplyCommand } from './commands/apply.js';
import { registerShowCommand } from './commands/show.js';
import { registerAccessCommand } from './commands/access.js';
import { registerAcceptInviteCommand } from './commands/accept-invite.js';
import { createOutput, type Output } from './output.js';
import { escapeControl } from '../views/escape.js';
import { processIo, type CliContext, type CliIo } from './context.js';

/** The variables a manifest's `fromEnv` may name (DESIGN.md §3). */
const SECRET_ENV_PREFIX = 'PLATFORM_SYNC_SECRET_';

export { processIo, type CliIo } from './context.js';

/** Options whose value is a path the user typed: read relative to the run's working directory. */
const PATH_OPTIONS = [
  'out',
  'sarif',
  'inviteCodes',
  'tokenFile',
  'secretsDir',
  'state',
  'seed',
  'tokens',
  'manifests',
] as const;

/**
 * `main(argv, io)` runs in `io.cwd` (DESIGN.md §5): manifest paths and path options are read
 * relative to it, not to the host process's directory. When the two are the same (the binary),
 * paths stay as typed, so messages name files the way the user wrote them.
 */
function resolvePathsAgainst(program: Command, cwd: string): void {
  if (resolve(cwd) === process.cwd()) return;
  const at = (p: string): string => (isAbsolute(p) ? p : resolve(cwd, p));
  program.hook('preAction', (_root, action) => {
    const args = action.processedArgs as unknown[];
    if (Array.isArray(args[0])) args[0] = (args[0] as unknown[]).map((p) => (typeof p === 'string' ? at(p) : p));
    for (const name of PATH_OPTIONS) {
      const value: unknown = action.getOptionValue(name);
      if (typeof value === 'string' && value !== '') action.setOptionValue(name, at(value));
      else if (Array.isArray(value))
        action.setOptionValue(
          name,
          value.map((p: unknown) => (typeof p === 'string' ? at(p) : p)),
        );
    }
  });
}

function buildProgram(ctx: CliContext): Command {
  const { output } = ctx;
  const program = new Command('platform-sync')
    .description('Keep a Platform API v2 organization exactly as YAML manifests describe it.')
    .version(packageVersion(), '-V, --version')
    .configureOutput({
      writeOut: (text) => output.stdout.write(text),
      writeErr: (text) => output.stderr.write(text),
      // One spelling for every error: commander's own "error: …" reads like ours, "Error: …".
      outputError: (text, write) => write(redactArgumentValues(text).replace(/^error: /, 'Error: ')),
    })
    .exitOverride();
  addGlobalOptions(program);
  program.hook('preAction', () => ctx.onCommand?.());
  // In the order of a day's work: check, plan, apply, watch, review, look up, adopt, try offline.
  registerValidateCommand(program, ctx);
  registerPlanCommand(program, ctx);
  registerApplyCommand(program, ctx);
  registerDriftCommand(program, ctx);
  registerAdoptCommand(program, ctx);
  registerAuditCommand(program, ctx);
  registerAccessCommand(program, ctx);
  registerShowCommand(program, ctx);
  registerExportCommand(program, ctx);
  registerEmulatorCommand(program, ctx);
  registerInitCommand(program, ctx);
  registerAcceptInviteCommand(program, ctx);
  addHelpExamples(program); // last: it attaches examples to every command registered above
  resolvePathsAgainst(program, ctx.cwd);
  // A usage error is one line and a pointer to the help, not fifty lines of help that push the
  // error itself off the screen.
  program.showHelpAfterError("Run 'platform-sync --help' for the commands and examples.");
  for (const command of program.commands) {
    command.showHelpAfterError(`Run 'platform-sync ${command.name()} --help' for its options and examples.`);
  }
  return program;
}

/**
 * Commander quotes a rejected argument whole (`unknown option '--token=s3cr3t'`), and such an
 * argument may hold a secret typed in the wrong place: the value after `=` is never repeated.
 */
function redactArgumentValues(message: string): string {
  return message.replace(/'(--?[\w-]+)=[^']*'/g, "'$1=…'");
}

/**
 * --base-url, --token-file, --emulator, --verbose and --no-color are global: accepted before
 * the command name as well as after it (`platform-sync --verbose plan …`). Commander reads the
 * program's options anywhere on the line, so each is copied onto the command that runs when
 * the user gave it. They stay hidden here: the top-level help lists them in its own section.
 */
const GLOBAL_OPTIONS: readonly [flags: string, key: string][] = [
  ['--base-url <url>', 'baseUrl'],
  ['--token-file <file>', 'tokenFile'],
  ['--emulator', 'emulator'],
  ['--insecure-http', 'insecureHttp'],
  ['--verbose', 'verbose'],
  ['--no-color', 'color'],
];

function addGlobalOptions(program: Command): void {
  for (const [flags] of GLOBAL_OPTIONS) program.addOption(new Option(flags).hideHelp());
  program.hook('preAction', (root, command) => {
    for (const [, key] of GLOBAL_OPTIONS) {
      if (root.getOptionValueSource(key) === 'cli')
        command.setOptionValueWithSource(key, root.getOptionValue(key), 'cli');
    }
  });
}

/**
 * Runs the CLI with `argv` (as `process.argv`: node, script, then the arguments) and returns
 * the exit code. Everything it touches comes from `io`, so it runs in-process as well as from
 * the bin; only the bin's io exits the process.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  // `platform-sync apply … | tee log`, then Ctrl-C: the reader dies first. What we still print
  // has nowhere to go, but the steps in flight must still finish rather than crash on EPIPE.
  const onStdoutError = (err: NodeJS.ErrnoException): void => {
    if (err.code !== 'EPIPE') throw err;
  };
  io.stdout.on('error', onStdoutError);
  // The one writer of every command: it redacts the token once a session knows it (output.ts).
  // In a GitHub Actions job (a plain `run:` step too), what the CLI prints is the job's log.
  const ctx: CliContext = {
    ...io,
    output: createOutput(io.stdout, io.stderr, { workflowLog: io.env.GITHUB_ACTIONS === 'true' }),
    exitCode: 0,
  };
  // The secrets the operator put in this run's environment are redacted from the start, by every
  // command, whether or not it sends them: live data may hold one (DESIGN.md §8 rev 4). Their
  // values are only compared with output, never sent or printed.
  for (const [name, value] of Object.entries(io.env))
    if (name.startsWith(SECRET_ENV_PREFIX) && value) ctx.output.addSecret(value);
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(argv);
    return ctx.exitCode;
  } catch (err) {
    return exitCodeFor(err, ctx.output);
  } finally {
    io.stdout.off('error', onStdoutError);
  }
}

function exitCodeFor(err: unknown, output: Output): number {
  if (err instanceof CommanderError) {
    // help and version exit 0; usage errors were already printed by commander.
    return err.exitCode;
  }
  if (err instanceof UserError) {
    // A message may quote the server or a manifest: control characters are shown, not sent.
    output.stderr.write(`Error: ${escapeControl(err.message)}\n`);
    return 1;
  }
  output.stderr.write(internalErrorText(err));
  return 1;
}

/**
 * What an internal error prints: the version and the trace, which names platform-sync's own files
 * from its package (`platform-sync/dist/…`), not the directory it is installed in; each line escaped.
 */
export function internalErrorText(err: unknown): string {
  const root = dirname(findPackageFile('package.json'));
  const trace = ((err as Error)?.stack ?? String(err))
    .replaceAll(`file://${root}`, 'platform-sync')
    .replaceAll(root, 'platform-sync');
  return `platform-sync ${packageVersion()}: internal error (this is a bug, please report it with this trace):\n${trace.split('\n').map(escapeControl).join('\n')}\n`;
}
