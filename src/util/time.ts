/**
 * Times as the API writes them. Pure arithmetic on the time it is given — no Date object, no
 * clock — so that the planner, which may read no clock, can use it.
 */

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `2026-12-04T03:16:55Z`: RFC 3339 in UTC, to the second (what an invite's expiration is sent as). */
export function rfc3339Seconds(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const days = Math.floor(seconds / 86400);
  const rest = seconds - days * 86400;
  // The civil date of a day count since 1970-01-01 (H. Hinnant's days_from_civil, inverted).
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(Math.floor(rest / 3600))}:${pad(Math.floor((rest % 3600) / 60))}:${pad(rest % 60)}Z`;
}

/** `2026-12-04T03:16:55.123Z`: RFC 3339 in UTC with milliseconds, the one form the service answers every time in. */
export function rfc3339Millis(ms: number): string {
  const whole = Math.floor(ms / 1000) * 1000;
  return `${rfc3339Seconds(whole).slice(0, -1)}.${pad(Math.floor(ms - whole), 3)}Z`;
}
