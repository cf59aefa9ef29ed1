import type { Command } from 'commander';

/** `platform-sync emulator`: owned by the emulator work (issue 2). */
export function registerEmulatorCommand(program: Command): void {
  program.command('emulator').description('Run the Platform API v2 emulator (not yet built)');
}
