import { readFileSync } from 'node:fs';

// When the host is short of memory (docs/operations.md#memory): the warm pool of session browsers
// gives its idle browsers back first (docs/sessions.md#the-warm-pool). Read from the kernel's
// MemAvailable, its estimate of what can be had without swapping.

/** MemAvailable in bytes, or undefined where /proc/meminfo does not say. */
export function availableMemory(): number | undefined {
  try {
    const kib = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * Short of memory: less is available than one more browser may take (`browserBytes`, its bound).
 * An idle browser held then would be memory a running session may need.
 */
export function memoryIsShort(
  browserBytes: number,
  available: () => number | undefined = availableMemory,
): boolean {
  const bytes = available();
  return bytes !== undefined && bytes < browserBytes;
}
