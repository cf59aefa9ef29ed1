/**
 * E-mails compare by ASCII lower case only (DESIGN.md §4 "E-mails"): `A`–`Z` become `a`–`z` and
 * nothing else changes, so a non-ASCII e-mail never equals an ASCII one (U+212A KELVIN SIGN,
 * which `toLowerCase()` turns into `k`, stays what it is).
 */
export function asciiLower(email: string): string {
  return email.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}
