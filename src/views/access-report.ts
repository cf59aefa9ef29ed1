/** The views of `platform-sync access`: one grant a line (text), or the report as JSON (schemas/access.schema.json). */
import type { AccessReport } from '../access/index.js';
import { escapeControl, stringifyForOutput } from './escape.js';

export function renderTextAccess(report: AccessReport): string {
  const q = report.query;
  const asked = q.identity !== undefined ? `what ${q.identity} can do` : `who holds ${q.capability} on ${q.scope}`;
  const lines = [`Access in org ${report.org.name}, as the manifests would make it: ${asked}`, ''];
  if (report.grants.length === 0) lines.push(q.identity !== undefined ? 'Nothing: no binding grants it a capability.' : 'Nobody: no binding on it or above grants that capability.');
  for (const g of report.grants) {
    const where = `${g.scope}${g.groups > 1 ? ` and ${g.groups - 1} group${g.groups === 2 ? '' : 's'} below` : ''}`;
    lines.push(q.identity !== undefined ? `${where}: ${g.capabilities.join(', ')}  (${g.binding}, role ${g.role})` : `${g.identity}  (${g.binding}, role ${g.role}, on ${g.scope})`);
  }
  return escapeControl(`${lines.join('\n')}\n`);
}

export function renderJsonAccess(report: AccessReport): string {
  return `${stringifyForOutput(report, 2)}\n`;
}
