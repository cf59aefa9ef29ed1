/**
 * One seed for every property and fuzz run of a test run (issue 47): `INVARIANT_SEED` when it is
 * set (to replay a run), else a new one each run, so that every run tries other cases. Set here,
 * in vitest's global setup (before any worker starts, so that every worker reads the same), and
 * printed, so that any failure can be replayed: `INVARIANT_SEED=<seed> npm test`.
 */
export default function setup(): void {
  if (process.env.INVARIANT_SEED === undefined || process.env.INVARIANT_SEED === '') {
    process.env.INVARIANT_SEED = String(Math.floor(Date.now() / 1000) % 1_000_000);
  }
  const seed = Number(process.env.INVARIANT_SEED);
  for (const name of ['FAST_YAML_SEED', 'REDACTION_SEED'])
    if (process.env[name] === undefined || process.env[name] === '') process.env[name] = String(seed);
  // Every emulator of the run checks its answers (test/support/strict-emulator.ts), spawned ones too.
  process.env.PLATFORM_SYNC_EMULATOR_STRICT = '1';
  process.stdout.write(`property and fuzz runs: seed ${seed} (replay: INVARIANT_SEED=${seed} npm test)\n`);
}
