/**
 * Secrets declared by reference (DESIGN.md §3): read at apply time from an environment variable
 * or a file, set into the one request that sends them, and named — never shown — in errors.
 */
import { readFileSync } from 'node:fs';
import { UserError } from '../model/errors.js';
import type { Plan } from '../model/plan.js';
import type { SecretRef } from '../model/resources.js';

/** Reads a secret's value; throws naming the variable or file, never a value. */
export type SecretReader = (ref: SecretRef) => string;

export class SecretUnavailableError extends UserError {
  constructor(message: string) {
    super('SECRET_UNAVAILABLE', message);
  }
}

function describeRef(ref: SecretRef): string {
  return 'fromEnv' in ref ? `environment variable ${ref.fromEnv}` : `file ${ref.fromFile}`;
}

/** The reader of the process (or of a given environment): variables from `env`, files from disk. */
export function secretReader(env: NodeJS.ProcessEnv = process.env): SecretReader {
  return (ref) => {
    let value: string | undefined;
    if ('fromEnv' in ref) value = env[ref.fromEnv];
    else {
      try {
        value = readFileSync(ref.fromFile, 'utf8');
      } catch (err) {
        throw new SecretUnavailableError(`cannot read the secret from ${describeRef(ref)} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
      }
    }
    // A trailing newline of a file (or an export) is not part of a secret.
    const secret = value?.replace(/\r?\n$/, '');
    if (secret === undefined || secret === '') throw new SecretUnavailableError(`the secret is not available: ${describeRef(ref)} is ${'fromEnv' in ref ? 'not set' : 'empty'}`);
    return secret;
  };
}

/**
 * Checks before anything is sent that every secret the plan's steps send can be read, and
 * returns the values (for redaction). Throws naming each missing variable or file.
 */
export function readPlanSecrets(plan: Plan, read: SecretReader): string[] {
  const values: string[] = [];
  const problems: string[] = [];
  for (const step of plan.steps) {
    for (const [path, ref] of Object.entries(step.secrets ?? {})) {
      try {
        values.push(read(ref));
      } catch (err) {
        problems.push(`${step.address} (${path}): ${(err as Error).message}`);
      }
    }
  }
  if (problems.length > 0) throw new SecretUnavailableError(`secrets the plan sends are not available:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return values;
}

/** Sets `value` at a dotted path inside a request body (`oidc.clientSecret`). */
export function setSecretAt(body: Record<string, unknown>, path: string, value: string): void {
  const parts = path.split('.');
  let holder = body;
  for (const part of parts.slice(0, -1)) {
    const next = holder[part];
    holder[part] = typeof next === 'object' && next !== null && !Array.isArray(next) ? { ...(next as Record<string, unknown>) } : {};
    holder = holder[part] as Record<string, unknown>;
  }
  holder[parts[parts.length - 1]!] = value;
}
