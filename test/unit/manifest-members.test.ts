/**
 * `members` lines in manifests (DESIGN.md §3): read with their group, roles resolved as a
 * binding's, one (email, role) pair per group — e-mails compared case-insensitively — and
 * `settings.inviteTtl`; every problem named with file:line:col.
 */
import { describe, expect, it } from 'vitest';
import { validateManifestTexts } from '../../src/manifest/index.js';

const doc = (body: string) => [{ file: 'org.yaml', text: `apiVersion: platform-sync/v1\norg:\n  name: acme\n${body}` }];
const messages = (body: string) =>
  validateManifestTexts(doc(body)).diagnostics.map((d) => `${d.location.line}:${d.location.column} ${d.message}`);

describe('manifests: members', () => {
  it('reads members of the org and of groups, with their roles resolved and addresses in lower case', () => {
    const { state, diagnostics } = validateManifestTexts(
      doc(
        '  roles:\n    - {name: reader, capabilities: [repo.list]}\n  members:\n    - {email: Alice@Acme.dev, role: viewer}\n  groups:\n    - name: eng\n      members:\n        - {email: bob@acme.dev, role: reader}\nsettings:\n  inviteTtl: 36h\n',
      ),
    );
    expect(diagnostics).toEqual([]);
    expect(state!.members!.map((m) => [m.address, m.email, m.role, `${m.source.line}:${m.source.column}`])).toEqual([
      ['member:alice@acme.dev=viewer', 'Alice@Acme.dev', { builtin: 'viewer' }, '7:7'],
      ['member:eng/bob@acme.dev=/reader', 'bob@acme.dev', { path: 'reader' }, '11:11'],
    ]);
    expect(state!.settings.inviteTtlMs).toBe(36 * 3600 * 1000);
  });

  it('refuses one (email, role) pair twice in a group, naming both lines; the same e-mail with another role or elsewhere is fine', () => {
    expect(
      messages(
        '  members:\n    - {email: alice@acme.dev, role: viewer}\n    - {email: ALICE@acme.dev, role: viewer}\n    - {email: alice@acme.dev, role: editor}\n',
      ),
    ).toEqual([
      '6:7 member "ALICE@acme.dev" of org "acme" with role "viewer" is declared twice (address member:alice@acme.dev=viewer; e-mails compare case-insensitively); also declared at org.yaml:5:7',
    ]);
  });

  it('names a bad e-mail, an unknown role and a bad inviteTtl at their positions', () => {
    const found = messages(
      '  members:\n    - {email: not-an-email, role: viewer}\n    - {email: bob@acme.dev, role: nope}\nsettings:\n  inviteTtl: 45d\n',
    );
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/^5:\d+ invalid .*"not-an-email"/);
    expect(found[1]).toMatch(/^6:\d+ unknown role "nope" in member "bob@acme\.dev" of org "acme"/);
    expect(found[2]).toMatch(/^8:14 settings\.inviteTtl 45d is longer than the 30 days an invite may stay open/);
  });
});
