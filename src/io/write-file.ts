/**
 * Files the product writes at a path a user named (SARIF reports, the embedded emulator's
 * directory): a path that cannot be written is a clear error naming it and why, never a stack
 * trace (DESIGN.md §8 rev 4). The text passed in has already gone through the door out.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UserError } from '../model/errors.js';

/** Why a path cannot be written, in words. */
export function describeWriteError(err: unknown, path: string): string {
  switch ((err as NodeJS.ErrnoException)?.code) {
    case 'EISDIR':
      return `${path} is a directory; name a file`;
    case 'ENOENT':
      return `its directory ${dirname(path)} does not exist`;
    case 'ENOTDIR':
      return `a part of ${path} is a file, not a directory`;
    case 'EEXIST':
      return `${path} exists and is not a directory`;
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return (err as NodeJS.ErrnoException)?.code ?? 'it cannot be written';
  }
}

/** Writes a whole text file; a failure is a UserError naming `what`, the path and why. */
export function writeUserFile(path: string, text: string, what: string, options: { mode?: number } = {}): void {
  try {
    writeFileSync(path, text, options.mode === undefined ? {} : { mode: options.mode });
  } catch (err) {
    throw new UserError('FILE_WRITE', `cannot write ${what} to ${path}: ${describeWriteError(err, path)}`, { cause: err });
  }
}

/** Makes a directory (and its parents); a failure is a UserError naming `what`, the path and why. */
export function makeUserDirectory(dir: string, what: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new UserError('FILE_WRITE', `cannot make ${what} ${dir}: ${describeWriteError(err, dir)}`, { cause: err });
  }
}
