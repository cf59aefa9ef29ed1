// Loaded with `node --require` into a measured process: at exit it writes that process's own
// CPU time and peak resident memory (getrusage) to the file named by PS_BENCH_USAGE_FILE.
'use strict';
const { writeFileSync } = require('node:fs');

const file = process.env.PS_BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssKiB: u.maxRSS }));
  });
}
