/**
 * The inviter's OpenPGP key (`apply --invite-codes FILE --invite-codes-recipient KEY`, DESIGN.md
 * §8 rev 6): each invite's code is encrypted to it before its line is written, so that the plain
 * code exists only in memory. The key is checked before any write — parsable, exactly one key, a
 * public one, not revoked, not expired, able to encrypt — and a key that fails any check refuses
 * the whole apply, naming why (a code encrypted to a key nobody can use is a dead invite).
 *
 * `openpgp` (OpenPGP.js, the maintained library; no gpg process) is loaded on first use: most
 * runs never encrypt anything.
 */
import { lazyRequire } from '../util/lazy-require.js';
import { UserError } from '../model/errors.js';
import { escapeValue } from '../io/escape.js';
import { FileReadError, readFileSyncBounded, readStreamBounded } from '../io/read-file.js';
import { resolve } from 'node:path';

const openpgp = lazyRequire<typeof import('openpgp')>('openpgp');

/** The largest key file read: a public key with many signatures is a few hundred KiB at most. */
export const MAX_RECIPIENT_KEY_BYTES = 1024 * 1024;

const ARMOR_HEADER = '-----BEGIN PGP PUBLIC KEY BLOCK-----';

/** A checked key that invite codes are encrypted to. */
export interface InviteRecipient {
  /** The primary key's fingerprint (40 or 64 hex digits, upper case): the `encryptedTo` of each line. */
  fingerprint: string;
  /** The key's first user ID as the key says it (untrusted text: escape it to show it). */
  userId: string;
  /** The code as an ASCII-armored OpenPGP message that only the key's holder can open. */
  encrypt(code: string): Promise<string>;
}

/** A key that cannot be used: `--invite-codes-recipient` refuses the apply before any write. */
export class InviteRecipientError extends UserError {
  constructor(source: string, why: string) {
    super('APPLY_INVITE_RECIPIENT', `--invite-codes-recipient ${escapeValue(source)}: ${why}. Nothing was changed.`);
  }
}

/**
 * Reads and checks the armored public key `text` (read from `source`, named in errors; its
 * content is never quoted). `now` is when the key must be valid.
 */
export async function readInviteRecipient(
  text: string,
  source: string,
  now: Date = new Date(),
): Promise<InviteRecipient> {
  const refuse = (why: string): InviteRecipientError => new InviteRecipientError(source, why);
  if (text.trim() === '')
    throw refuse(
      'it holds no key (it is empty); give the armored OpenPGP public key of whoever sends people their codes',
    );
  const privateKey =
    'it is a private key; give the public key only (gpg --armor --export <id>), and keep the private key away from CI';
  if (text.includes('-----BEGIN PGP PRIVATE KEY BLOCK-----')) throw refuse(privateKey);
  const blocks = text.split(ARMOR_HEADER).length - 1;
  if (blocks === 0) throw refuse(`it is not an ASCII-armored OpenPGP public key (a block starting ${ARMOR_HEADER})`);
  // OpenPGP.js reads the first armored block only: a second one would be silently left out.
  if (blocks > 1)
    throw refuse(
      `it holds ${blocks} key blocks; give exactly one key, the inviter's (every code is encrypted to one key)`,
    );
  const pgp = openpgp();
  let keys: Awaited<ReturnType<typeof pgp.readKeys>>;
  try {
    keys = await pgp.readKeys({ armoredKeys: text });
  } catch {
    throw refuse('it is not a readable OpenPGP public key (damaged or cut short)');
  }
  if (keys.length !== 1)
    throw refuse(`it holds ${keys.length} keys; give exactly one, the inviter's (every code is encrypted to one key)`);
  const key = keys[0]!;
  if (key.isPrivate()) throw refuse(privateKey);
  const fingerprint = key.getFingerprint().toUpperCase();
  const named = `key ${fingerprint}`;
  if (await key.isRevoked(undefined, undefined, now)) throw refuse(`${named} is revoked`);
  let expires: Date | number | null;
  try {
    expires = await key.getExpirationTime();
  } catch {
    expires = null;
  }
  if (expires instanceof Date && expires.getTime() <= now.getTime())
    throw refuse(`${named} expired on ${expires.toISOString()}`);
  try {
    await key.verifyPrimaryKey(now);
  } catch (err) {
    throw refuse(`${named} is not valid now (${escapeValue(messageOf(err))})`);
  }
  try {
    await key.getEncryptionKey(undefined, now);
  } catch {
    throw refuse(
      `${named} cannot encrypt: it has no valid encryption key (a signing-only key, or its encryption subkey expired or was revoked)`,
    );
  }
  const userId = key.getUserIDs()[0] ?? '';
  return {
    fingerprint,
    userId,
    async encrypt(code: string): Promise<string> {
      const message = await pgp.createMessage({ text: code });
      return pgp.encrypt({ message, encryptionKeys: key, format: 'armored', date: now });
    },
  };
}

/**
 * The key `--invite-codes-recipient` names: a file (read through the one door in) or `-`
 * (standard input), checked by {@link readInviteRecipient}.
 */
export async function loadInviteRecipient(
  source: string,
  io: { cwd: string; stdin: NodeJS.ReadableStream },
  now?: Date,
): Promise<InviteRecipient> {
  let bytes: Buffer;
  try {
    bytes =
      source === '-'
        ? await readStreamBounded(io.stdin, { maxBytes: MAX_RECIPIENT_KEY_BYTES, label: 'standard input' })
        : readFileSyncBounded(resolve(io.cwd, source), { maxBytes: MAX_RECIPIENT_KEY_BYTES, label: source });
  } catch (err) {
    if (err instanceof FileReadError) throw new InviteRecipientError(source, `cannot read the key: ${err.reason}`);
    throw err;
  }
  return readInviteRecipient(bytes.toString('utf8'), source === '-' ? 'standard input' : source, now);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
