/**
 * Files the product writes at a path a user named (SARIF reports, the embedded emulator's
 * directory): a path that cannot be written is a clear error naming it and why, never a stack
 * trace (DESIGN.md §8 rev 4). The text passed in has already gone through the door out.
 */
import { escapeValue } from './escape.js';
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
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
export function writeUserFile(path: string, text: string, what: string, options: { mode?: number; exclusive?: boolean } = {}): void {
  try {
    // `exclusive`: a file that exists (even one made a moment ago) is never overwritten.
    writeFileSync(path, text, { ...(options.mode === undefined ? {} : { mode: options.mode }), ...(options.exclusive ? { flag: 'wx' } : {}) });
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

/** Removes a directory this run made and left empty of anything worth keeping (best effort: it is never an error). */
export function removeUserDirectory(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // left behind: harmless
  }
}

/** A file of secrets the operator asked for, appended to line by line (see openSecretFile). */
export interface SecretFile {
  /** Appends one line and makes it durable before returning: a secret written is a secret kept. */
  appendLine(line: string): void;
  close(): void;
}

/**
 * Opens the one file a secret may be written to (`apply --invite-codes FILE`, DESIGN.md §4): a
 * regular file, never followed through a symlink, created 0600 (an existing one is made 0600),
 * appended to. Its lines bypass redaction on purpose — they are the secrets — so nothing else
 * may be written through it. Opened before the first request: a path that cannot be written is
 * a clear error and changes nothing.
 */
export function openSecretFile(path: string, what: string): SecretFile {
  // Opened before the first request: whatever goes wrong here, nothing was changed yet.
  const refuse = (why: string, cause?: unknown) => new UserError('FILE_WRITE', `cannot write ${what} to ${escapeValue(path)}: ${why}. Nothing was changed.`, cause === undefined ? undefined : { cause });
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException)?.code;
    throw refuse(code === 'ELOOP' ? 'it is a symbolic link; name the file itself' : describeWriteError(err, path), err);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw refuse('it is not a regular file');
    // Owned by whoever runs apply (DESIGN.md §8 rev 5): another user's file — one that user could
    // read, or a planted one — never receives a code.
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) throw refuse(`it belongs to another user (uid ${stat.uid}, not ${uid}); name a file of your own`);
    fchmodSync(fd, 0o600);
  } catch (err) {
    closeSync(fd);
    if (err instanceof UserError) throw err;
    throw refuse(describeWriteError(err, path), err);
  }
  return {
    appendLine(line) {
      try {
        writeSync(fd, `${line}\n`);
        fsyncSync(fd);
      } catch (err) {
        throw new UserError('FILE_WRITE', `cannot write ${what} to ${path}: ${describeWriteError(err, path)}`, { cause: err });
      }
    },
    close() {
      closeSync(fd);
    },
  };
}
