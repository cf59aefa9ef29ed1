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

/** Answers of isHttpsUrl: manifests repeat a few issuers thousands of times. Bounded. */
const httpsAnswers = new Map<string, boolean>();
const MAX_HTTPS_ANSWERS = 1_000;

/** An absolute https URL with a host. */
export function isHttpsUrl(s: string): boolean {
  let answer = httpsAnswers.get(s);
  if (answer === undefined) {
    const url = parseUrl(s);
    answer = url !== undefined && url.hostname !== '' && url.protocol === 'https:';
    if (httpsAnswers.size >= MAX_HTTPS_ANSWERS) httpsAnswers.clear();
    httpsAnswers.set(s, answer);
  }
  return answer;
}
