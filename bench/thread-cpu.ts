import { readFileSync } from 'node:fs';

/**
 * CPU time of the calling thread in ms, or undefined where the system does not tell it (Linux
 * tells it: /proc/thread-self/schedstat, in nanoseconds). A process's CPU less its main thread's
 * is what ran on its helper threads: V8's optimizing compiler and parallel GC, libuv's pool.
 */
export function threadCpuMs(): number | undefined {
  try {
    const ns = Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
