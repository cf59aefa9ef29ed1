/**
 * Seeded randomness for the emulator. Faults and uids each draw from their own stream so that
 * a change in one (say, a request that creates nothing) never shifts the other.
 */
import { randomBytes, randomInt } from 'node:crypto';

/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/** mulberry32: tiny, fast, good enough for test faults; same seed → same sequence. */
export function createSeededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Unseeded: a fresh crypto-derived seed, so two emulators never share a sequence by accident. */
export function createRandom(seed?: number): Random {
  return createSeededRandom(seed ?? randomInt(0, 2 ** 32 - 1));
}

/** Makes `length` lowercase hex characters from `random` (or from crypto when absent). */
export function generateHex(length: number, random?: Random): string {
  if (!random)
    return randomBytes(Math.ceil(length / 2))
      .toString('hex')
      .slice(0, length);
  let out = '';
  while (out.length < length) {
    // 24 bits per draw keeps every hex digit uniform.
    out += Math.floor(random() * 0x1000000)
      .toString(16)
      .padStart(6, '0');
  }
  return out.slice(0, length);
}
