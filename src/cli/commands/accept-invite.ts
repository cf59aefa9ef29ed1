/**
 * `platform-sync accept-invite --emulator --code CODE --email E [--subject S] [--issuer URL]`
 * (issue 50): a person accepting their invite on the embedded emulator, as they would on the
 * service in its own sign-in flow — so a member's whole lifecycle (invite, pending, present) can be
 * tried offline. The code is the credential, read from the --invite-codes file and never printed.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { readTextSyncBounded } from '../../io/read-file.js';
import { escapeValue } from '../../io/escape.js';
import { asciiLower } from '../../model/email.js';
import { UserError } from '../../model/errors.js';
import type { CliContext } from '../context.js';

interface AcceptOptions {
  emulator?: boolean;
  code?: string;
  codeFile?: string;
  email: string;
  subject?: string;
  issuer: string;
}

export function registerAcceptInviteCommand(program: Command, ctx: CliContext): void {
  program
    .command('accept-invite')
    .description(
      "Accept a member's invite on the embedded emulator (--emulator), as the person would on the service: makes their identity and the binding of the invite's role",
    )
    .option(
      '--emulator',
      'the embedded emulator of this directory (.platform-sync/emulator.json); the only one this command accepts on',
    )
    .option(
      '--code <code>',
      "the invite's code, from the --invite-codes file (better: --code-file, which keeps it off the command line)",
    )
    .option(
      '--code-file <file>',
      "read the code from the --invite-codes file: the newest line of --email's whose invite is still open (one invite a call)",
    )
    .requiredOption('--email <email>', 'the e-mail the person signs in with (the invite is for it)')
    .option('--subject <subject>', 'the subject their sign-in gives them (default: the e-mail)')
    .option('--issuer <url>', 'the issuer of their sign-in', 'https://accounts.google.com')
    .action(async (options: AcceptOptions) => {
      if (!options.emulator)
        throw new UserError(
          'USAGE',
          "accept-invite works on the embedded emulator only (--emulator): on the service, the person invited accepts in the service's own sign-in flow",
        );
      // Newest first: a code an earlier call (or a --reinvite) spent is skipped, so an e-mail invited to two groups accepts both.
      const codes =
        options.code !== undefined
          ? [options.code]
          : options.codeFile !== undefined
            ? (await codesFromFile(options.codeFile, options.email, ctx.cwd)).reverse()
            : [];
      if (codes.length === 0)
        throw new UserError('USAGE', 'name the code: --code-file <the --invite-codes file> (or --code <code>)');
      for (const code of codes) ctx.output.addSecret(code);
      const { startEmbeddedEmulator } = await import('../embedded.js');
      const { ACCEPT_INVITE_PATH } = await import('../../emulator/invites.js');
      const embedded = await startEmbeddedEmulator({ cwd: ctx.cwd, writes: true });
      try {
        let refused: UserError | undefined;
        for (const code of codes) {
          const res = await fetch(`${embedded.connection.baseUrl}${ACCEPT_INVITE_PATH}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              code,
              email: options.email,
              issuer: options.issuer,
              subject: options.subject ?? options.email,
            }),
          });
          const text = await res.text();
          if (res.status === 200) {
            refused = undefined;
            break;
          }
          refused = notAccepted(res.status, text);
          // 404: no open invite has this code (accepted or deleted): an older line may still be open.
          if (res.status !== 404) break;
        }
        if (refused !== undefined) throw refused;
        ctx.output.stdout.write(
          `Accepted: ${escapeValue(options.email)} signed in and holds the invite's role; the next plan finds the member present.\n`,
        );
      } finally {
        await embedded.close();
      }
    });
}

/** Why the emulator did not accept a code, as the error the command ends with. */
function notAccepted(status: number, text: string): UserError {
  const message = (() => {
    try {
      return (JSON.parse(text) as { message?: string }).message;
    } catch {
      return undefined;
    }
  })();
  return new UserError(
    'ACCEPT_INVITE',
    `the invite was not accepted (HTTP ${status}${typeof message === 'string' ? `: ${escapeValue(message.slice(0, 500))}` : ''})`,
  );
}

/** The codes of the invites for `email` in an --invite-codes file (one JSON object a line), in the file's order. */
async function codesFromFile(path: string, email: string, cwd: string): Promise<string[]> {
  const text = readTextSyncBounded(resolve(cwd, path), { maxBytes: 16 * 1024 * 1024, label: path });
  let encrypted = false;
  const codes = text.split('\n').flatMap((line) => {
    try {
      const record = JSON.parse(line) as { email?: unknown; code?: unknown; encryptedTo?: unknown };
      if (
        typeof record.email !== 'string' ||
        typeof record.code !== 'string' ||
        asciiLower(record.email) !== asciiLower(email)
      )
        return [];
      // A code encrypted to the inviter's key (--invite-codes-recipient) is theirs to open.
      if (record.encryptedTo !== undefined) return ((encrypted = true), []);
      return [record.code];
    } catch {
      return [];
    }
  });
  if (codes.length === 0 && encrypted) {
    const where = `the code for ${escapeValue(email)} in ${escapeValue(path)}`;
    throw new UserError(
      'ACCEPT_INVITE',
      `${where} is encrypted to the inviter's OpenPGP key: decrypt it first (gpg --decrypt) and pass it with --code`,
    );
  }
  if (codes.length === 0)
    throw new UserError('ACCEPT_INVITE', `no invite code for ${escapeValue(email)} in ${escapeValue(path)}`);
  return codes;
}
