/**
 * `platform-sync init [DIR]` (DESIGN.md §5): a starter repository a newcomer can run at once —
 * a commented org manifest (with the `yaml-language-server` schema line), the GitHub workflow
 * (the package's own example), a `.gitignore`, and a README of the next three commands. It never
 * overwrites a file: one that exists is kept, and said so.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readPackageText, readTextSyncBounded } from '../io/read-file.js';
import { environmentRedactor } from '../io/redact.js';
import { makeUserDirectory, writeUserFile, type Redactor } from '../io/write-file.js';
import { findPackageFile } from '../io/package-file.js';
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
}

/** What a repository's .gitignore must hold so that invite codes, saved plans and emulator state never reach git (DESIGN.md §8 rev 5). */
const IGNORED = ['.platform-sync/', 'plan.json', 'invites*.jsonl'];

/** The starter's files, for an org named `org`. */
export function starterFiles(org: string): StarterFile[] {
  if (!new RegExp(NAME_PATTERN_SOURCE).test(org) || org.length > 63) throw new UserError('USAGE', `--org ${JSON.stringify(org)} is not an org name; expected lowercase letters, digits, ".", "_", "-" or spaces (e.g. acme)`);
  return [
    { path: 'manifests/org.yaml', text: orgManifest(org) },
    { path: '.github/workflows/platform-sync.yml', text: starterWorkflow(readPackageText(findPackageFile('examples/github-actions/platform-sync.yml'))) },
    { path: '.gitignore', text: GITIGNORE },
    { path: 'README.md', text: starterGuide(org) },
  ];
}

/** Writes the starter into `dir` (made when missing); an existing file is kept, never overwritten. */
export function writeStarter(dir: string, org: string, redact: Redactor = environmentRedactor()): InitResult {
  const result: InitResult = { written: [], kept: [], updated: [] };
  for (const file of starterFiles(org)) {
    const path = join(dir, file.path);
    if (existsSync(path) && file.path === '.gitignore') {
      // An existing .gitignore is kept, with the lines it lacks added at its end: without them a
      // `git add -A` after `apply --invite-codes invites.jsonl` commits every code.
      const text = readTextSyncBounded(path, { maxBytes: 1024 * 1024 });
      const have = new Set(text.split(/\r?\n/).map((l) => l.trim()));
      const added = IGNORED.filter((line) => !have.has(line));
      if (added.length > 0) {
        writeUserFile(path, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}# platform-sync: invite codes, saved plans and emulator state stay out of git\n${added.join('\n')}\n`, file.path, { redact });
        result.updated.push({ path: file.path, added });
      } else result.kept.push(file.path);
      continue;
    }
    if (existsSync(path)) {
      result.kept.push(file.path);
      continue;
    }
    makeUserDirectory(dirname(path), 'the directory of');
    writeUserFile(path, file.text, file.path, { redact, exclusive: true });
    result.written.push(file.path);
  }
  return result;
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
const EXAMPLE_SECRET = /^( +)# The secrets the manifests name.*\n +secrets-env: \|\n +PLATFORM_SYNC_SECRET_ACME_OKTA=.*\n/gm;

/**
 * The package's example workflow, as the starter's: the example's own provider secret becomes the
 * comment that says how to give the apply step one.
 */
export function starterWorkflow(example: string): string {
  if (example.search(EXAMPLE_SECRET) < 0) throw new Error('the example workflow no longer holds the env block the starter rewrites');
  return example.replace(EXAMPLE_SECRET, (_all, indent: string) =>
    `${indent}# secrets-env: one line per {fromEnv: PLATFORM_SYNC_SECRET_<NAME>} your manifests name, e.g.\n` +
    `${indent}# secrets-env: |\n` +
    `${indent}#   PLATFORM_SYNC_SECRET_OKTA=\${{ secrets.PLATFORM_SYNC_SECRET_OKTA }}\n`);
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
[platform-sync](https://www.npmjs.com/package/platform-sync). Edit the files, open a pull request:
the workflow in \`.github/workflows/platform-sync.yml\` posts the plan on it, applies it when it is
merged, and checks every night that nobody changed the org by hand.

## The next three commands

\`\`\`sh
npx --no-install platform-sync validate manifests/                       # offline: schema, references, duplicates
npx --no-install platform-sync plan manifests/ --emulator --bootstrap    # the plan, against an emulator on this machine
npx --no-install platform-sync apply manifests/ --emulator --bootstrap --auto-approve
\`\`\`

Then point it at the real API: set \`PLATFORM_API_URL\` and \`PLATFORM_TOKEN\`, and run
\`npx --no-install platform-sync plan manifests/\` (the first apply of a new org needs \`--bootstrap\`).
\`npx --no-install platform-sync demo\` walks through plan, apply, drift and export on an example org.

## Before the first pull request

In \`.github/workflows/platform-sync.yml\`:

- replace each \`your-org/platform-sync@0000…\` with the platform-sync action at the commit of the
  release you reviewed (a full commit SHA, the tag in a comment);
- set the repository variable \`PLATFORM_API_URL\`, the secret \`PLATFORM_TOKEN_READONLY\` (a viewer
  token: plan and drift) and, in an environment named \`platform\`, the secret \`PLATFORM_TOKEN\`
  (a token that can write: apply only).

The references are installed with the package: \`node_modules/platform-sync/docs/\` (manifests,
CLI, GitHub Action, security).
`;
}
