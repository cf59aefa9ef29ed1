/**
 * The audit renderers: every text in a finding comes from manifests or live data, so each goes
 * through the one escape; markdown cannot break its table or become HTML; JSON and SARIF carry
 * the findings whole.
 */
import { describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/audit/index.js';
import { renderJsonAudit, renderMarkdownAudit, renderSarifAudit, renderTextAudit } from '../../src/views/audit.js';

const hostile = 'x\u001b[2J\u202e | </td><img src=x> `code`';
const report: AuditReport = {
  formatVersion: 1,
  org: { name: 'acme', uid: 'a'.repeat(40) },
  summary: { high: 1, medium: 0, low: 1 },
  findings: [
    {
      rule: 'pattern-any-owner',
      severity: 'high',
      address: 'identity:ci',
      message: `subjectPattern "${hostile}"`,
      location: { file: '/repo/manifests/org.yaml', line: 4, column: 7 },
    },
    {
      rule: 'outside-identity',
      severity: 'low',
      address: 'roleBinding:uid:x=viewer',
      message: 'binds identity x, which is outside the org',
    },
  ],
};

describe('audit views', () => {
  it('text: one finding a line (severity, rule, address, message, location), control characters escaped', () => {
    const text = renderTextAudit(report);
    expect(text).toContain('HIGH   pattern-any-owner  identity:ci: subjectPattern "x\\u{1b}[2J\\u{202e} |');
    expect(text).toContain('(/repo/manifests/org.yaml:4:7)');
    expect(text).toMatch(
      /^LOW {4}outside-identity {2}roleBinding:uid:x=viewer: binds identity x, which is outside the org$/m,
    );
    expect(text).not.toMatch(/[\u001b\u202e]/);
    expect(text).toContain('2 findings: 1 high, 0 medium, 1 low.');
  });

  it('markdown: a table whose cells cannot break out (no raw |, no HTML, no raw controls)', () => {
    const md = renderMarkdownAudit(report);
    const row = md.split('\n').find((l) => l.startsWith('| high'))!;
    expect(row.split(/(?<!\\)\|/).length).toBe(7); // five cells
    expect(md).not.toContain('<img');
    expect(md).toContain('&lt;img src=x&gt;');
    expect(md).not.toMatch(/[\u001b\u202e]/);
    expect(md).toContain(
      '| low | `outside-identity` | `roleBinding:uid:x=viewer` | binds identity x, which is outside the org | live only |',
    );
  });

  it('JSON and SARIF: the findings whole, controls as JSON escapes, paths relative to the repository root', () => {
    const json = renderJsonAudit(report);
    expect(json).not.toMatch(/[\u001b\u202e]/);
    expect(JSON.parse(json)).toEqual(report);
    const sarif = JSON.parse(
      renderSarifAudit(report, {
        version: '0.1.0',
        baseDir: '/repo',
        orgLocation: { file: '/repo/manifests/org.yaml', line: 2, column: 1 },
      }),
    ) as {
      runs: {
        results: {
          locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[];
          level: string;
        }[];
      }[];
    };
    const [first, second] = sarif.runs[0]!.results;
    expect(first!.level).toBe('error');
    expect(first!.locations[0]!.physicalLocation.artifactLocation.uri).toBe('manifests/org.yaml');
    expect(second!.level).toBe('note');
    expect(second!.locations[0]!.physicalLocation.region.startLine).toBe(2);
  });

  it('names a manifest outside the repository by an absolute file: URI, never ../ (DESIGN.md §7, issue 50)', () => {
    const outside: AuditReport = {
      ...report,
      findings: [{ ...report.findings[0]!, location: { file: '/elsewhere/team a.yaml', line: 3, column: 5 } }],
    };
    const sarif = JSON.parse(renderSarifAudit(outside, { version: '0.1.0', baseDir: '/repo' })) as {
      runs: {
        results: { locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string } } }[] }[];
      }[];
    };
    expect(sarif.runs[0]!.results[0]!.locations[0]!.physicalLocation.artifactLocation).toEqual({
      uri: 'file:///elsewhere/team%20a.yaml',
    });
  });
});
