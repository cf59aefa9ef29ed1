/** The views of `platform-sync access`: one grant a line (text), or the report as JSON (schemas/access.schema.json). */
import type { AccessReport } from '../access-query.js';
import { escapeControl, stringifyForOutput } from './escape.js';

function asked(report: AccessReport): string {
  const q = report.query;
  const who =
    q.identity !== undefined
      ? q.identity
      : q.email !== undefined
        ? `email:${q.email}`
        : q.as !== undefined
          ? `a token ${JSON.stringify(q.as)}`
          : 'anyone';
  const what = q.capability ?? 'any capability';
  const where = q.scope !== undefined ? ` on ${q.scope}` : '';
  return `what ${who} can do (${what}${where})`;
}

export function renderTextAccess(report: AccessReport): string {
  const q = report.query;
  const state = report.state === 'live' ? 'as it is now' : 'as the manifests would make it';
  const lines = [`Access in org ${report.org.name}, ${state}: ${asked(report)}`, ''];
  if (report.actingAs !== undefined) {
    lines.push(
      report.actingAs.length === 0
        ? 'The token can act as no identity of the org.'
        : `The token can act as: ${report.actingAs.join(', ')}`,
      '',
    );
  }
  // Who a principal admits, when that is broad, said once before its grants (access/admits.ts).
  const admitting = new Map(
    report.grants.flatMap((g) => (g.admits !== undefined ? [[g.principal, g.admits] as const] : [])),
  );
  for (const [principal, admits] of admitting) lines.push(`${principal} admits ${admits.join('; ')}`);
  if (admitting.size > 0) lines.push('');
  if (report.grants.length === 0)
    lines.push(
      q.scope !== undefined || q.capability !== undefined
        ? 'Nobody: no grant on it or above gives that.'
        : 'Nothing: no grant gives a capability.',
    );
  const onePrincipal =
    new Set(report.grants.map((g) => g.principal)).size === 1 && (q.identity !== undefined || q.email !== undefined);
  for (const g of report.grants) {
    const where = `${g.scope}${g.groups > 1 ? ` and ${g.groups - 1} group${g.groups === 2 ? '' : 's'} below` : ''}`;
    // A custom role is named by its address (`role:engineering/deployer`), a built-in by its name.
    const role = g.role.startsWith('role:') ? g.role : `role ${g.role}`;
    // Not held, but obtainable through an escalating capability: marked, with the path.
    const caps =
      g.obtainable !== undefined && g.capabilities.length > 8
        ? `${g.capabilities.length} capabilities (${g.capabilities.slice(0, 4).join(', ')}, …; --format json lists them)`
        : g.capabilities.join(', ');
    if (g.obtainable !== undefined)
      lines.push(
        onePrincipal
          ? `${where}: can obtain ${caps}  (${g.obtainable})`
          : `${g.principal}  can obtain on ${where}: ${caps}  (${g.obtainable})`,
      );
    else
      lines.push(
        onePrincipal
          ? `${where}: ${g.capabilities.join(', ')}  (${g.grant}, ${role})`
          : `${g.principal}  (${g.grant}, ${role}, on ${where}): ${g.capabilities.join(', ')}`,
      );
  }
  return escapeControl(`${lines.join('\n')}\n`);
}

export function renderJsonAccess(report: AccessReport): string {
  return `${stringifyForOutput(report, 2)}\n`;
}

/** Access renderers, a small registry by format name, as plans have (views/plan.ts): `--format` picks one. */
const ACCESS_RENDERERS = { text: renderTextAccess, json: renderJsonAccess } as const;

export type AccessFormat = keyof typeof ACCESS_RENDERERS;
export const ACCESS_FORMATS = Object.keys(ACCESS_RENDERERS) as AccessFormat[];

/** The access report in one of the formats. */
export function renderAccess(report: AccessReport, format: AccessFormat): string {
  return ACCESS_RENDERERS[format](report);
}
