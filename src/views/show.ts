/** The view of `show`: one line per declared resource that exists live (address, then uid), or JSON. */
import type { ShownResources } from '../show.js';
import { escapeControl, stringifyForOutput } from './escape.js';

export function renderShownText(shown: ShownResources): string {
  const width = Math.max(0, ...shown.resources.map((r) => r.address.length));
  const lines = [`org ${escapeControl(shown.org.name)} (${shown.org.uid}):`];
  for (const r of shown.resources) lines.push(`  ${escapeControl(r.address).padEnd(width)}  ${r.uid}`);
  if (shown.resources.length === 0) lines.push('  (none of the declared resources exists live yet)');
  return `${lines.join('\n')}\n`;
}

export function renderShownJson(shown: ShownResources): string {
  return `${stringifyForOutput(shown, 2)}\n`;
}
