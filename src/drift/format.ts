import type { SourceLocation } from '../model/resources.js';

/** `file:line:column`, the form editors and CI annotations jump to. */
export function formatSourceLocation(location: SourceLocation): string {
  return `${location.file}:${location.line}:${location.column}`;
}
