/**
 * `platform-sync init [DIR]` (DESIGN.md §5): a starter repository a newcomer can run at once —
 * a commented org manifest (with the `yaml-language-server` schema line), the GitHub workflow
 * (the package's own example), a `package.json` that depends on this exact platform-sync version
 * (the workflow installs it with `npm ci` and uses its action from node_modules), a `.gitignore`,
 * and a README of the next commands. It never overwrites a file: one that exists is kept, and
 * said so; and it never writes through a symbolic link (DESIGN.md §8 rev 6): a file it would
 * write or append to that is a link, or lies under a directory that is one, is reported and left
 * alone — appending to a `.gitignore` that links elsewhere would copy the link's target (a secret
 * outside the repository, say) into a file `git add -A` stages.
 */
import { lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readFileSyncBounded, readPackageText } from '../io/read-file.js';
import { environmentRedactor } from '../io/redact.js';
import { appendToExistingFile, makeUserDirectory, writeUserFile, type Redactor } from '../io/write-file.js';
import { findPackageFile, packageVersion } from '../io/package-file.js';
import { NAME_PATTERN_SOURCE } from '../model/vocabulary.js';
import { UserError } from '../model/errors.js';

export interface StarterFile {
  /** Relative to the starter's directory. */
  path: string;
  text: string;
}

export interface InitResult {
  written: string[];
  /** Files that existed and were left as they are. */
  kept: string[];
  /** Files that existed and had lines added (an existing .gitignore gets the lines that keep secrets out of git). */
  updated: { path: string; added: string[] }[];
  /** Files left alone because they, or a directory on their way, are symbolic links: `link` is the one that is. */
  links: { path: string; link: string }[];
}

/** What a repository's .gitignore must hold so that invite codes, saved plans and emulator state never reach git (DESIGN.md §8 rev 5). */
const IGNORED = ['.platform-sync/', 'plan.json', 'invites*.jsonl'];

/** The starter's files, for an org named `org`. */
export function starterFiles(org: string): StarterFile[] {
  if (!new RegExp(NAME_PATTERN_SOURCE).test(org) || org.length > 63)
    throw new UserError(
      'USAGE',
      `--org ${JSON.stringify(org)} is not an org name; expected lowercase letters, digits, ".", "_", "-" or spaces (e.g. acme)`,
    );
  return [
    { path: 'manifests/org.yaml', text: orgManifest(org) },
    {
      path: '.github/workflows/platform-sync.yml',
      text: starterWorkflow(readPackageText(findPackageFile('examples/github-actions/platform-sync.yml'))),
    },
    { path: 'package.json', text: starterPackage(org) },
    { path: '.gitignore', text: GITIGNORE },
    { path: 'README.md', text: starterGuide(org) },
  ];
}

/** Writes the starter into `dir` (made when missing); an existing file is kept, never overwritten, and no link is written through. */
export function writeStarter(dir: string, org: string, redact: Redactor = environmentRedactor()): InitResult {
  const result: InitResult = { written: [], kept: [], updated: [], links: [] };
  for (const file of starterFiles(org)) {
    const path = join(dir, file.path);
    const link = linkOnTheWay(dir, file.path);
    if (link !== undefined) {
      result.links.push({ path: file.path, link });
      continue;
    }
    const exists = lstatSync(path, { throwIfNoEntry: false }) !== undefined;
    if (exists && file.path === '.gitignore') {
      // An existing .gitignore is kept, with the lines it lacks added at its end: without them a
      // `git add -A` after `apply --invite-codes invites.jsonl` commits every code.
      const bytes = readFileSyncBounded(path, { maxBytes: 1024 * 1024 });
      const added = missingLines(bytes, IGNORED);
      if (added.length > 0) {
        const endsLine = bytes.length === 0 || bytes[bytes.length - 1] === 0x0a;
        // The file's own line ending (a Windows user's CRLF), so that the file keeps one.
        const eol = bytes.includes('\r\n') ? '\r\n' : '\n';
        // Appended, never rewritten (DESIGN.md rev 5): the user's bytes stay as they are, whatever
        // their encoding, and pass through no redaction (a line of theirs equal to a secret is theirs).
        appendToExistingFile(
          path,
          [
            ...(endsLine ? [] : ['']),
            '# platform-sync: invite codes, saved plans and emulator state stay out of git',
            ...added,
            '',
          ].join(eol),
          file.path,
          redact,
        );
        result.updated.push({ path: file.path, added });
      } else result.kept.push(file.path);
      continue;
    }
    if (exists) {
      result.kept.push(file.path);
      continue;
    }
    makeUserDirectory(dirname(path), 'the directory of');
    writeUserFile(path, file.text, file.path, { redact, exclusive: true });
    result.written.push(file.path);
  }
  return result;
}

/**
 * The lines of `wanted` that the file's bytes do not hold as a line (surrounding blanks, a CR and
 * a byte order mark ignored). The bytes are read as latin1, one character a byte: a .gitignore in any encoding, or
 * none, is compared byte for byte, never misread as UTF-8 (the lines wanted are ASCII).
 */
function missingLines(bytes: Buffer, wanted: readonly string[]): string[] {
  const have = new Set(
    bytes
      .toString('latin1')
      // A UTF-8 byte order mark, which git skips, is not part of the first line.
      .replace(/^\xef\xbb\xbf/, '')
      .split('\n')
      .map((l) => l.trim()),
  );
  return wanted.filter((line) => !have.has(line));
}

/**
 * The first symbolic link on the way from `dir` to `dir/path` (the file itself included), as a
 * path relative to `dir`; undefined when there is none. `dir` itself may be a link: it is the
 * directory the user named.
 */
function linkOnTheWay(dir: string, path: string): string | undefined {
  const parts = path.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const at = parts.slice(0, i).join('/');
    const stat = lstatSync(join(dir, at), { throwIfNoEntry: false });
    if (stat === undefined) return undefined;
    if (stat.isSymbolicLink()) return at;
  }
  return undefined;
}

/** An npm package name for the starter's repository (lowercase, URL-safe): `acme corp` → `acme-corp-platform`. */
function npmNameOf(org: string): string {
  const base = org.replace(/[^a-z0-9._-]+/g, '-').replace(/^[-._]+|[-._]+$/g, '');
  return `${base || 'org'}-platform`;
}

/**
 * The starter's package.json: platform-sync at exactly this version (no range), so that the CLI
 * a developer runs and the action the workflow uses (`uses: ./node_modules/platform-sync`, after
 * `npm ci`) are one version, pinned by package-lock.json's integrity hash and upgraded by an
 * ordinary dependency pull request.
 */
export function starterPackage(org: string): string {
  const pkg = {
    name: npmNameOf(org),
    private: true,
    description: `The Platform API v2 org ${org}, as code: manifests applied by platform-sync`,
    dependencies: { 'platform-sync': packageVersion() },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** The `$schema` of the starter's manifests: the installed package's, seen from `manifests/`. */
const SCHEMA_REF = '../node_modules/platform-sync/schemas/manifest.schema.json';

/** A GitHub owner the org's name could be (letters, digits and "-"): the starter's guess, to be edited. */
function githubOwnerOf(org: string): string {
  return org.replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'your-org';
}

function orgManifest(org: string): string {
  return `# yaml-language-server: $schema=${SCHEMA_REF}
#
# Your org, as it should be. platform-sync plans the changes that make the org match this file
# (and every other .yaml file under manifests/): \`platform-sync plan manifests/\`.
# Reference: node_modules/platform-sync/docs/manifests.md (installed with the package)
apiVersion: platform-sync/v1
org:
  name: ${JSON.stringify(org)}                 # the root group, found by name among those the token sees
  description: Managed by platform-sync from git
  identities:
    # A GitHub Actions workflow, by the exact subject of its token (audit flags loose patterns).
    - name: release-bot
      description: Release workflow of ${githubOwnerOf(org)}/app
      claimMatch:
        issuer: https://token.actions.githubusercontent.com
        subject: repo:${githubOwnerOf(org)}/app:ref:refs/heads/main   # your GitHub owner/repository
  roleBindings:
    - identity: release-bot
      role: registry.push          # a built-in role; custom roles go under roles:
  repos:
    - name: app
      description: The application image
  # People, by the e-mail they sign in with: invited until they accept (apply --invite-codes invites.jsonl).
  # members:
  #   - {email: you@example.com, role: viewer}
  groups:
    - name: engineering
      description: The engineering teams
settings:
  prune: true                  # live resources these files do not describe are deleted by apply
  protect: ["repo:*"]          # never deleted, whatever the files say
`;
}

/** The example's secret of its own org's identity provider, which the starter's manifest does not have. */
const EXAMPLE_SECRET =
  /^( +)# The secrets the manifests name.*\n +secrets-env: \|\n +PLATFORM_SYNC_SECRET_ACME_OKTA=.*\n/gm;

/**
 * The package's example workflow, as the starter's: the example's own provider secret becomes the
 * comment that says how to give the apply step one.
 */
export function starterWorkflow(example: string): string {
  if (example.search(EXAMPLE_SECRET) < 0)
    throw new Error('the example workflow no longer holds the env block the starter rewrites');
  return example.replace(
    EXAMPLE_SECRET,
    (_all, indent: string) =>
      `${indent}# secrets-env: one line per {fromEnv: PLATFORM_SYNC_SECRET_<NAME>} your manifests name, e.g.\n` +
      `${indent}# secrets-env: |\n` +
      `${indent}#   PLATFORM_SYNC_SECRET_OKTA=\${{ secrets.PLATFORM_SYNC_SECRET_OKTA }}\n`,
  );
}

const GITIGNORE = `# platform-sync: the embedded emulator's state (--emulator)
.platform-sync/
# saved plans: apply them, do not commit them
plan.json
# invite codes are secrets: hand them to the people invited, never commit them
invites*.jsonl
node_modules/
`;

function starterGuide(org: string): string {
  return `# ${org}: the org as code

The Platform API v2 org \`${org}\`, kept as the YAML files in \`manifests/\` describe it by
platform-sync (${packageVersion()}, pinned in \`package.json\`). Edit the files, open a pull request:
the workflow in \`.github/workflows/platform-sync.yml\` posts the plan on it, applies it when it is
merged, and checks every night that nobody changed the org by hand.

## The next commands

\`\`\`sh
npm install                                                              # platform-sync as package.json pins it; writes package-lock.json
npx --no-install platform-sync validate manifests/                       # offline: schema, references, duplicates
npx --no-install platform-sync plan manifests/ --emulator --bootstrap    # the plan, against an emulator on this machine
npx --no-install platform-sync apply manifests/ --emulator --bootstrap --auto-approve
\`\`\`

Then point it at the real API: set \`PLATFORM_API_URL\` and \`PLATFORM_TOKEN\`, and run
\`npx --no-install platform-sync plan manifests/\` (the first apply of a new org needs \`--bootstrap\`).
\`npx --no-install platform-sync demo\` walks through plan, apply, drift and export on an example org.

## Before the first pull request

- Commit \`package.json\` **and \`package-lock.json\`**: the workflow installs platform-sync with
  \`npm ci\` (exactly the locked version, its integrity hash checked, in a step that holds no
  secret) and runs its action from \`./node_modules/platform-sync\`. Upgrading is an ordinary
  dependency pull request (\`npm install --save-exact platform-sync@<version>\`), reviewed like any
  other.
- Set the repository variable \`PLATFORM_API_URL\`, the secret \`PLATFORM_TOKEN_READONLY\` (a viewer
  token: plan and drift) and, in an environment named \`platform\`, the secret \`PLATFORM_TOKEN\`
  (a token that can write: apply only).
- Members (people invited by e-mail): set the repository variable \`INVITE_CODES_PUBLIC_KEY\` to
  the armored OpenPGP public key of whoever sends people their codes
  (\`gpg --armor --export you@example.com\`). Each apply that invites someone encrypts every code
  to that key before it is written, and keeps the file as the run's artifact
  \`platform-sync-invite-codes-<run>-<attempt>\` (7 days); download it and open a code with
  \`jq -r 'select(.email == "alice@example.com") | .code' invites.jsonl | gpg --decrypt\`.
  A key that cannot encrypt (expired, revoked, signing-only) stops the apply before any change.

The references are installed with the package: \`node_modules/platform-sync/docs/\` (manifests,
CLI, GitHub Action, security).
`;
}
