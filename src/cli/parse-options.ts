/** Small option parsers shared by commands (kept apart so that `validate` loads no more than it needs). */
import { UserError } from '../model/errors.js';

/** Parses a byte count option: a whole number of at least 1. */
export function parseByteCount(value: string, option: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new UserError('OPTION_INVALID', `${option} must be a whole number of bytes, got "${value}"`);
  return n;
}

/** Parses a duration option in seconds: a number from 0 to one day. */
export function parseSeconds(value: string, option: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 86_400)
    throw new UserError('OPTION_INVALID', `${option} must be a number of seconds from 0 to 86400, got "${value}"`);
  return n;
}
