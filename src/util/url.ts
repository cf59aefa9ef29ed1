/** URL checks shared by manifest validation and connection settings. */
import { boundedMemo } from './bounded-memo.js';

export function parseUrl(s: string): URL | undefined {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
}

/** An absolute URL with a host. */
export function isUrl(s: string): boolean {
  const url = parseUrl(s);
  return url !== undefined && url.hostname !== '';
}

/** An absolute https URL with a host. Kept (bounded): manifests repeat a few issuers thousands of times. */
export const isHttpsUrl: (s: string) => boolean = boundedMemo(1_000, (s) => {
  const url = parseUrl(s);
  return url !== undefined && url.hostname !== '' && url.protocol === 'https:';
});

const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;

/**
 * Why a URL written in a manifest is refused for holding a character that is not ASCII (DESIGN.md
 * §3): a look-alike host (`tоken.actions…` with a Cyrillic `о`) must never pass review; an
 * international host is written in its punycode form (`xn--…`). Undefined when it is ASCII.
 */
export function nonAsciiUrlProblem(what: string, value: string): string | undefined {
  if (!NOT_PRINTABLE_ASCII.test(value)) return undefined;
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (code > 0x7e || code < 0x20) {
      const hex = code.toString(16).toUpperCase().padStart(4, '0');
      return `${what} holds U+${hex}, which is not ASCII: URLs in manifests are ASCII (a look-alike character could pass review unseen); write an international host in its punycode form (xn--…)`;
    }
  }
  return undefined;
}
