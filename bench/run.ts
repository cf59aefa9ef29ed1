/**
 * `npm run bench`: runs every benchmark in this folder in turn and prints figures and ratios.
 * Each benchmark module exports `run(): Promise<void>` and prints its own section.
 */
const BENCHES: { name: string; load: () => Promise<{ run: () => Promise<void> }> }[] = [
  { name: 'emulator', load: () => import('./emulator.js') },
  { name: 'emulator-state', load: () => import('./emulator-state.js') },
  { name: 'live-read', load: () => import('./live-read.js') },
  { name: 'validate', load: () => import('./validate.js') },
  { name: 'plan', load: () => import('./plan.js') },
  { name: 'plan-process', load: () => import('./plan-process.js') },
  { name: 'apply', load: () => import('./apply.js') },
];

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  for (const b of BENCHES) {
    if (only.length > 0 && !only.includes(b.name)) continue;
    process.stdout.write(`\n=== ${b.name} ===\n`);
    const mod = await b.load();
    await mod.run();
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exitCode = 1;
});
