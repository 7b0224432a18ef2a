import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A small disk of a test's own: a tmpfs mounted on a fresh folder, to be filled to the last byte
// and freed under a running service (docs/operations.md). Mounting needs root, as the tests run
// in CI; a test that cannot mount fails with the reason, never skips.

export interface SmallDisk {
  /** Where it is mounted. */
  dir: string;
  /** Writes zeros to `file` (in the disk) until the filesystem refuses: the disk is then full. */
  fill(file: string): void;
  /** Unmounts it and removes the folder. */
  remove(): void;
}

export function mountSmallDisk(prefix: string, size: string): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `cannot mount a small tmpfs (this test needs root): ${String((err as { stderr?: Buffer }).stderr ?? err)}`,
      { cause: err },
    );
  }
  return {
    dir,
    fill: (file) => {
      const fd = openSync(file, 'w');
      const chunk = Buffer.alloc(64 * 1024);
      try {
        for (let size = chunk.length; size >= 1;) {
          try {
            writeSync(fd, chunk, 0, size);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
            size = Math.floor(size / 2);
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    remove: () => {
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
