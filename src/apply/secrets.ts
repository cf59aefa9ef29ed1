/**
 * Secrets declared by reference (DESIGN.md §3, §8). The manifests that name them may come from an
 * untrusted pull request, so a reference reaches only what the operator handed over for it:
 * `fromEnv` names a `PLATFORM_SYNC_SECRET_*` variable (never the token or another credential of
 * the runner); `fromFile` is a relative path under the secrets directory the operator names
 * (`--secrets-dir`/`PLATFORM_SYNC_SECRETS_DIR`), whose real path stays inside it, a regular file
 * of at most 64 KiB opened without blocking (a FIFO or a device is refused, never waited on).
 * A value has at least 16 characters. `plan` only checks that references resolve (it never reads
 * a value); `apply` reads them all before it prints anything, so each is redacted everywhere.
 */
import { setAtPath } from '../model/field-path.js';
import { realpathSync, type Stats, statSync } from 'node:fs';
import { FileReadError, inside, readTextSyncBounded } from '../io/read-file.js';
import { resolve } from 'node:path';
import { UserError } from '../model/errors.js';
import type { Plan } from '../model/plan.js';
import type { DesiredState, SecretRef } from '../model/resources.js';
import { checkSecretRefShape } from '../model/secret-ref.js';

/** Largest secret file read. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;
/** Shortest secret value accepted (a shorter one could not be redacted from output safely). */
export const MIN_SECRET_LENGTH = 16;

/** Reads a secret's value; throws naming the variable or file, never a value. */
export type SecretReader = (ref: SecretRef) => string;

export class SecretUnavailableError extends UserError {
  constructor(message: string) {
    super('SECRET_UNAVAILABLE', message);
  }
}

/** Where secrets may come from: the run's environment, and the operator's secrets directory. */
export interface SecretSources {
  env: NodeJS.ProcessEnv;
  /** `--secrets-dir` or `PLATFORM_SYNC_SECRETS_DIR`; without it `fromFile` is an error. */
  secretsDir?: string;
}

function describeRef(ref: SecretRef): string {
  return 'fromEnv' in ref
    ? `environment variable ${ref.fromEnv}`
    : `file ${JSON.stringify(ref.fromFile)} of the secrets directory`;
}

/** The real path of a `fromFile` reference, checked to stay inside the secrets directory. */
function locateSecretFile(ref: { fromFile: string }, secretsDir: string | undefined): string {
  const shape = checkSecretRefShape(ref);
  if (shape) throw new SecretUnavailableError(shape);
  if (secretsDir === undefined || secretsDir === '') {
    throw new SecretUnavailableError(
      `${describeRef(ref)}: there is no secrets directory; the operator names one with --secrets-dir or PLATFORM_SYNC_SECRETS_DIR`,
    );
  }
  let root: string;
  let real: string;
  try {
    root = realpathSync(secretsDir);
  } catch (err) {
    throw new SecretUnavailableError(
      `the secrets directory cannot be read (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    );
  }
  try {
    real = realpathSync(resolve(root, ref.fromFile));
  } catch (err) {
    throw new SecretUnavailableError(
      `${describeRef(ref)} cannot be found (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    );
  }
  if (real === root || !inside(root, real)) {
    // Where it points is not said: it is outside what the operator handed over.
    throw new SecretUnavailableError(
      `${describeRef(ref)} resolves outside the secrets directory (a symlink?); it may not be read`,
    );
  }
  return real;
}

/** Checks a located file without reading it: a regular file, not empty, not too big. */
function checkSecretFileStat(ref: { fromFile: string }, stat: { isFile(): boolean; size: number }): void {
  if (!stat.isFile())
    throw new SecretUnavailableError(
      `${describeRef(ref)} is not a regular file (a FIFO, a device or a directory is never read)`,
    );
  if (stat.size > MAX_SECRET_FILE_BYTES)
    throw new SecretUnavailableError(`${describeRef(ref)} is larger than ${MAX_SECRET_FILE_BYTES} bytes`);
  if (stat.size === 0) throw new SecretUnavailableError(`${describeRef(ref)} is empty`);
}

/** Reads a secret file through the door in: confined, regular, non-blocking, bounded. */
function readSecretFile(ref: { fromFile: string }, secretsDir: string | undefined): string {
  const real = locateSecretFile(ref, secretsDir);
  try {
    // Confined by locateSecretFile already; the door opens that real path without following a link.
    return readTextSyncBounded(real, { maxBytes: MAX_SECRET_FILE_BYTES, label: describeRef(ref) });
  } catch (err) {
    if (!(err instanceof FileReadError)) throw err;
    if (err.code === 'not-regular' || err.code === 'is-directory')
      throw new SecretUnavailableError(
        `${describeRef(ref)} is not a regular file (a FIFO, a device or a directory is never read)`,
      );
    if (err.code === 'too-large')
      throw new SecretUnavailableError(`${describeRef(ref)} is larger than ${MAX_SECRET_FILE_BYTES} bytes`);
    throw new SecretUnavailableError(err.message);
  }
}

/** The reader of a run: variables from `env`, files from the secrets directory. */
export function secretReader(
  sources: SecretSources = { env: process.env, secretsDir: process.env.PLATFORM_SYNC_SECRETS_DIR },
): SecretReader {
  return (ref) => {
    let value: string | undefined;
    if ('fromEnv' in ref) {
      const shape = checkSecretRefShape(ref);
      if (shape) throw new SecretUnavailableError(shape);
      value = sources.env[ref.fromEnv];
    } else {
      value = readSecretFile(ref, sources.secretsDir);
    }
    // A trailing newline of a file (or an export) is not part of a secret.
    const secret = value?.replace(/\r?\n$/, '');
    if (secret === undefined || secret === '')
      throw new SecretUnavailableError(
        `the secret is not available: ${describeRef(ref)} is ${'fromEnv' in ref ? 'not set' : 'empty'}`,
      );
    if (secret.length < MIN_SECRET_LENGTH)
      throw new SecretUnavailableError(
        `the secret from ${describeRef(ref)} is shorter than ${MIN_SECRET_LENGTH} characters; use a real secret`,
      );
    return secret;
  };
}

/**
 * For `plan`: checks that a reference resolves without reading its value — the variable is set,
 * the file is a regular file inside the secrets directory of an acceptable size. Throws naming
 * the reference.
 */
export function checkSecretAvailable(ref: SecretRef, sources: SecretSources): void {
  if ('fromEnv' in ref) {
    const shape = checkSecretRefShape(ref);
    if (shape) throw new SecretUnavailableError(shape);
    if (sources.env[ref.fromEnv] === undefined || sources.env[ref.fromEnv] === '')
      throw new SecretUnavailableError(`the secret is not available: ${describeRef(ref)} is not set`);
    return;
  }
  const real = locateSecretFile(ref, sources.secretsDir);
  let stat: Stats;
  try {
    stat = statSync(real);
  } catch (err) {
    throw new SecretUnavailableError(
      `${describeRef(ref)} cannot be found (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    );
  }
  checkSecretFileStat(ref, stat);
}

/** Every secret reference a plan's steps send, with the step that sends it. */
function secretRefsOf(plan: Plan): { where: string; ref: SecretRef }[] {
  return plan.steps.flatMap((step) =>
    Object.entries(step.secrets ?? {}).map(([path, ref]) => ({ where: `${step.address} (${path})`, ref })),
  );
}

function throwProblems(problems: string[]): void {
  if (problems.length > 0)
    throw new SecretUnavailableError(
      `secrets the plan sends are not available:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
}

/**
 * For `plan`: the references the plan sends that do not resolve here, as warnings (no value is
 * read). A plan needs no secret (DESIGN.md §3 rev 4: a pull request from a fork has none);
 * `apply` fails naming the ones it must send.
 */
export function planSecretWarnings(plan: Plan, sources: SecretSources): string[] {
  const warnings: string[] = [];
  for (const { where, ref } of secretRefsOf(plan)) {
    try {
      checkSecretAvailable(ref, sources);
    } catch (err) {
      warnings.push(`${where}: ${(err as Error).message}; it is read at apply, which fails without it`);
    }
  }
  return warnings;
}

/**
 * Reads every secret a plan sends now, once (for `apply`: before anything is printed, so that the
 * reader can redact each value from all output). Returns a reader that answers from what was
 * read, and the error naming every reference that could not be read, if any.
 */
export function readSecretsOnce(
  plan: Plan,
  read: SecretReader,
): { read: SecretReader; error?: SecretUnavailableError } {
  const values = new Map<string, string>();
  const key = (ref: SecretRef) => ('fromEnv' in ref ? `env:${ref.fromEnv}` : `file:${ref.fromFile}`);
  const problems: string[] = [];
  for (const { where, ref } of secretRefsOf(plan)) {
    if (values.has(key(ref))) continue;
    try {
      values.set(key(ref), read(ref));
    } catch (err) {
      problems.push(`${where}: ${(err as Error).message}`);
    }
  }
  const cached: SecretReader = (ref) => values.get(key(ref)) ?? read(ref);
  try {
    throwProblems(problems);
  } catch (err) {
    return { read: cached, error: err as SecretUnavailableError };
  }
  return { read: cached };
}

/**
 * Checks before anything is sent that every secret the plan's steps send can be read, and
 * returns the values (for redaction). Throws naming each missing variable or file.
 */
export function readPlanSecrets(plan: Plan, read: SecretReader): string[] {
  const once = readSecretsOnce(plan, read);
  if (once.error) throw once.error;
  return secretRefsOf(plan).map(({ ref }) => once.read(ref));
}

/**
 * Reads every secret the desired state names, for redaction only (a reader that registers each
 * value it reads): a value that cannot be read is skipped, since this plan may not send it.
 */
export function redactDeclaredSecrets(desired: DesiredState, read: SecretReader): void {
  for (const resource of desired.resources) {
    for (const ref of Object.values(resource.secrets ?? {})) {
      try {
        read(ref);
      } catch {
        // not available here: not sent by this plan either, or readSecretsOnce says so
      }
    }
  }
}

/** Sets `value` at a dotted path inside a request body (`oidc.clientSecret`). */
export function setSecretAt(body: Record<string, unknown>, path: string, value: string): void {
  setAtPath(body, path, value);
}
