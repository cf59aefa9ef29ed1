// Loaded with `node --require` into a measured process: at exit it writes that process's own
// CPU time and peak resident memory (getrusage) to the file named by PS_BENCH_USAGE_FILE, and on
// Linux the CPU time of its main thread alone (/proc/thread-self/schedstat, in nanoseconds): the
// rest ran on V8's and libuv's helper threads (optimizing compiles, parallel GC, file reads).
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');

/**
 * CPU time of the calling thread in ms, or undefined where /proc does not tell it. The same as
 * bench/thread-cpu.ts, which this CommonJS preload cannot load (dist is ES modules; Node 20 does
 * not require them).
 */
function threadCpuMs() {
  try {
    const ns = Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

const file = process.env.PS_BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, mainThreadCpuMs: threadCpuMs(), maxRssKiB: u.maxRSS }));
  });
}
