/** URL checks shared by manifest validation and connection settings. */

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

/** An absolute https URL with a host. */
export function isHttpsUrl(s: string): boolean {
  return isUrl(s) && parseUrl(s)!.protocol === 'https:';
}
