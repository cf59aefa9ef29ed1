/**
 * A secret as a manifest names it (DESIGN.md §8): `{fromEnv}` or `{fromFile}`, never the value.
 * Its shape is the model's, checked offline (`validate`); reading it is the executor's
 * (apply/secrets.ts).
 */
import { isAbsolute } from 'node:path';
import type { SecretRef } from './resources.js';

/** The only environment variables a manifest may name. */
export const SECRET_ENV_PATTERN = /^PLATFORM_SYNC_SECRET_[A-Z0-9_]+$/;
/**
 * What is wrong with a reference as a manifest wrote it (offline: `validate`), or undefined.
 * A file is a relative path that stays inside the secrets directory as written.
 */
export function checkSecretRefShape(ref: SecretRef): string | undefined {
  if ('fromEnv' in ref) {
    return SECRET_ENV_PATTERN.test(ref.fromEnv)
      ? undefined
      : `fromEnv ${JSON.stringify(ref.fromEnv)} may not be read: a manifest may only name variables matching ${SECRET_ENV_PATTERN.source} (e.g. PLATFORM_SYNC_SECRET_OKTA), so that it cannot name the API token or another credential of the runner`;
  }
  const path = ref.fromFile;
  if (path === '' || path.includes('\0') || isAbsolute(path) || /^[A-Za-z]:|^[\\/]/.test(path)) {
    return `fromFile ${JSON.stringify(path)} must be a path relative to the secrets directory that the operator names (--secrets-dir or PLATFORM_SYNC_SECRETS_DIR)`;
  }
  if (path.split(/[\\/]/).includes('..'))
    return `fromFile ${JSON.stringify(path)} may not contain "..": it is a path inside the secrets directory`;
  return undefined;
}
