/**
 * OpenPGP keys for tests, made with OpenPGP.js in this process (no gpg, so no agent and no
 * keyring directory is left behind): the inviter's key pair, and the keys `apply
 * --invite-codes-recipient` must refuse.
 */
import * as openpgp from 'openpgp';

export interface TestKeyPair {
  publicKey: string;
  privateKey: string;
  fingerprint: string;
}

const DAY_SECONDS = 24 * 60 * 60;

/** A key pair of the inviter (Curve25519: made in milliseconds). */
export async function makeKeyPair(
  email = 'inviter@acme.dev',
  options: { signingOnly?: boolean; expiredDaysAgo?: number } = {},
): Promise<TestKeyPair> {
  const expired = options.expiredDaysAgo !== undefined;
  const { publicKey, privateKey } = await openpgp.generateKey({
    type: 'ecc',
    curve: 'curve25519Legacy',
    userIDs: [{ name: 'Inviter', email }],
    format: 'armored',
    ...(options.signingOnly ? { subkeys: [] } : {}),
    // Made two days before it expired, `expiredDaysAgo` days ago.
    ...(expired
      ? {
          date: new Date(Date.now() - (options.expiredDaysAgo! + 2) * DAY_SECONDS * 1000),
          keyExpirationTime: 2 * DAY_SECONDS,
        }
      : {}),
  });
  const key = await openpgp.readKey({ armoredKey: publicKey });
  return { publicKey, privateKey, fingerprint: key.getFingerprint().toUpperCase() };
}

/** The public key of `pair`, revoked by its holder. */
export async function revokedPublicKey(pair: TestKeyPair): Promise<string> {
  const privateKey = await openpgp.readPrivateKey({ armoredKey: pair.privateKey });
  const { publicKey } = await openpgp.revokeKey({ key: privateKey, format: 'armored' });
  return publicKey;
}

/** One armored block holding the public keys of both pairs (what `gpg --export a b` writes). */
export async function twoKeysInOneBlock(a: TestKeyPair, b: TestKeyPair): Promise<string> {
  const keys = [
    ...(await openpgp.readKeys({ armoredKeys: a.publicKey })),
    ...(await openpgp.readKeys({ armoredKeys: b.publicKey })),
  ];
  const bytes = new Uint8Array(keys.flatMap((k) => [...k.write()]));
  return openpgp.armor(openpgp.enums.armor.publicKey, bytes);
}

/** Opens an armored message with the private key of `pair`: what the inviter does with a code. */
export async function decryptWith(pair: TestKeyPair, armoredMessage: string): Promise<string> {
  const decryptionKeys = await openpgp.readPrivateKey({ armoredKey: pair.privateKey });
  const message = await openpgp.readMessage({ armoredMessage });
  const { data } = await openpgp.decrypt({ message, decryptionKeys, format: 'utf8' });
  return data as string;
}
