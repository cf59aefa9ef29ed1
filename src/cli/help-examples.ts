/**
 * Examples shown at the end of `--help` for every command (commander's addHelpText), kept in
 * one table so they read alike and stay true together. Each example is a command line a user
 * can paste; exit codes are repeated where a script depends on them.
 */
import type { Command } from 'commander';

const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  '': [
    'platform-sync demo                               a guided tour on an embedded emulator',
    'platform-sync init my-org                        a starter repository: manifest, workflow, README',
    'platform-sync validate manifests/',
    'PLATFORM_TOKEN=… platform-sync plan manifests/ --base-url https://api.example.com',
    'platform-sync plan manifests/ --emulator          no server needed; state in .platform-sync/',
    'platform-sync <command> --help                    options and examples of one command',
  ],
  validate: [
    'platform-sync validate manifests/                 every problem, with file:line:column',
    'platform-sync validate org.yaml teams/*.yaml',
    'Exit codes: 0 valid, 1 invalid.',
  ],
  plan: [
    'platform-sync plan manifests/',
    'platform-sync plan manifests/ --format markdown > plan.md      for a pull-request comment',
    'platform-sync plan manifests/ --detailed-exitcode              exit 2 when there are changes',
    'platform-sync plan manifests/ --out plan.json && platform-sync apply plan.json',
    "platform-sync plan manifests/ --target 'repo:engineering/*'",
    'platform-sync plan manifests/ --emulator --verbose',
    'Exit codes: 0 ok (with --detailed-exitcode: 0 no changes, 2 changes), 1 error or a refused plan.',
  ],
  apply: [
    'platform-sync apply manifests/                    plan, show it, ask, apply',
    'platform-sync apply manifests/ --auto-approve     in CI (required without a terminal)',
    'platform-sync apply plan.json                     exactly a saved plan; refused when stale',
    'platform-sync apply manifests/ --bootstrap        create the org the first time (else: not visible is an error)',
    'platform-sync apply manifests/ --emulator --auto-approve --concurrency 16',
    'Exit codes: 0 applied, 1 error, refused or partly applied (run plan to see what is left).',
  ],
  drift: [
    'platform-sync drift manifests/                    where live differs: changed by hand, or not applied yet',
    'platform-sync drift manifests/ --format json | jq .summary',
    'platform-sync drift manifests/ --format markdown > drift.md',
    'platform-sync drift manifests/ --emulator',
    'In GitHub Actions the markdown report is also appended to $GITHUB_STEP_SUMMARY.',
    'A read-only (viewer) token is enough.',
    'Exit codes: 0 in sync, 2 drift, 1 error.',
  ],
  adopt: [
    'platform-sync adopt manifests/                    the diff that makes the manifests describe live (nothing written)',
    'platform-sync adopt manifests/ --write            write it: keep the changes made by hand',
    'platform-sync adopt manifests/ --write --into manifests/by-hand.yaml   resources made by hand go there',
    'platform-sync adopt manifests/ --format json | jq .summary',
    'Every byte a change does not touch is kept: comments, key order, quoting, flow or block style, blank lines.',
    'The other answer to drift is `platform-sync apply`, which reverts live to the manifests.',
    'Exit codes: 0 in sync, 2 a diff (written with --write), 1 error.',
  ],
  export: [
    'platform-sync export --org acme --out manifests/  org.yaml + one file per top-level group',
    'platform-sync export --org 3f1e…(40 hex) --out manifests/    by uid',
    'platform-sync export --org acme > acme.yaml       one multi-document stream',
    'platform-sync export --org acme --emulator --out exported/ && platform-sync plan exported/ --emulator',
    'A read-only (viewer) token is enough.',
    'Exit codes: 0 written, 1 error.',
  ],
  access: [
    'platform-sync access manifests/ --identity identity:engineering/ci-bot       what ci-bot can do, and which bindings grant it',
    'platform-sync access manifests/ --scope group:engineering --capability tag.create   who can create tags in engineering',
    'platform-sync access manifests/ --identity identity:release-bot --format json',
    'The org as the manifests would make it: live with the plan applied. A read-only (viewer) token is enough.',
    'Exit codes: 0 answered, 1 error.',
  ],
  show: [
    'platform-sync show manifests/                     address and uid of each declared resource that exists',
    'platform-sync show manifests/ --format json | jq -r \'.resources[] | select(.address == "identity:engineering/ci-bot") | .uid\'',
    'A read-only (viewer) token is enough.',
    'Exit codes: 0 shown, 1 error.',
  ],
  emulator: [
    'platform-sync emulator --port 8080 --token dev-token',
    'PLATFORM_API_URL=http://127.0.0.1:8080 PLATFORM_TOKEN=dev-token platform-sync plan manifests/ --bootstrap',
    'platform-sync emulator --tokens tokens.yaml --seed seed.yaml --state state.json   tokens kept off the command line; state kept across restarts',
  ],
  audit: [
    'platform-sync audit manifests/                          findings in the terminal; exit 2 when one is high',
    'platform-sync audit manifests/ --fail-on medium --stale-days 60',
    'platform-sync audit manifests/ --sarif audit.sarif      SARIF 2.1.0 for GitHub code scanning',
    'platform-sync audit manifests/ --format json | jq \'.findings[] | select(.severity == "high")\'',
    'Judges the org as it will be once the manifests apply. A read-only (viewer) token is enough.',
    'Exit codes: 0 nothing at or above --fail-on (default high), 2 findings at or above it, 1 error.',
  ],
  init: [
    'platform-sync init                    a starter repository here: manifests/org.yaml, the GitHub workflow, .gitignore, README',
    'platform-sync init acme-infra --org acme',
    'Never overwrites a file: one that exists is kept, and said so. Exit codes: 0 done, 1 error.',
  ],
  'accept-invite': [
    'platform-sync apply manifests/ --emulator --invite-codes invites.jsonl',
    'platform-sync accept-invite --emulator --code-file invites.jsonl --email alice@acme.dev   alice signs in: present at the next plan',
    'Exit codes: 0 accepted, 1 error (no such code, expired, another e-mail).',
  ],
  demo: [
    'platform-sync demo                    plan, apply, drift, export, a rename, a member invited, an audit — on an embedded emulator',
    'Works in a temporary directory and leaves nothing behind. Exit codes: 0 every step as expected, 1 otherwise.',
  ],
};

/** Appends the examples to the help of the program and of each command that has some. */
export function addHelpExamples(program: Command): void {
  // A command's line in the top-level help reads as its own usage (`plan [options] <paths...>`), not as its parser's arguments.
  program.configureHelp({ subcommandTerm: (cmd) => `${cmd.name()} ${cmd.usage()}` });
  program.addHelpText(
    'after',
    '\nOptions of plan, apply, drift, audit, access, export and show (before or after the command name):\n' +
      '  --base-url <url>      Platform API base URL (default: $PLATFORM_API_URL)\n' +
      '  --token-file <file>   read the API token from a file (default: $PLATFORM_TOKEN; never an argument)\n' +
      '  --emulator            use an embedded emulator, state in .platform-sync/emulator.json\n' +
      '  --insecure-http       allow http:// to a host that is not loopback (default: refused, the token would travel in clear)\n' +
      '  --verbose             log every HTTP request and its timing to stderr (token never shown)\n' +
      '  --no-color            plain output (also when NO_COLOR is set or output is not a terminal)\n',
  );
  attach(program, EXAMPLES['']!);
  for (const command of program.commands) {
    const examples = EXAMPLES[command.name()];
    if (examples) attach(command, examples);
  }
}

function attach(command: Command, examples: readonly string[]): void {
  command.addHelpText('after', `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}\n`);
}
