import { constants } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { randomToken } from '@havn/shared';

// The service runs as root and a session's browser under a uid of its own
// (docs/render.md#browser-processes). A file the browser wrote is read the one way that cannot be
// turned against root: opened without following a link (O_NOFOLLOW; the folders above it are
// root's, so only the last name is the browser's to choose), checked on the open descriptor
// (a regular file, the browser's own, one link: neither a link nor a hard link to a file of
// root's), and copied from that descriptor into a folder of the service's own.

export type CopyResult = 'absent' | 'refused' | 'too big' | { path: string; bytes: number };

const CHUNK = 1024 * 1024;

export async function copyOwnedFile(
  path: string,
  intoDir: string,
  expect: { owner: number | undefined; maxBytes: number },
): Promise<CopyResult> {
  let source;
  try {
    // O_NONBLOCK: a FIFO planted under the name must not hang the open.
    source = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'absent' : 'refused';
  }
  try {
    const info = await source.stat();
    const owner = expect.owner ?? process.getuid?.();
    if (!info.isFile() || info.nlink !== 1 || (owner !== undefined && info.uid !== owner)) {
      return 'refused';
    }
    if (info.size > expect.maxBytes) return 'too big';
    const target = join(intoDir, `${randomToken(9)}-${basename(path)}`);
    const copy = await open(
      target,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
      0o600,
    );
    let bytes = 0;
    try {
      const buffer = Buffer.allocUnsafe(CHUNK);
      for (;;) {
        const { bytesRead } = await source.read(buffer, 0, CHUNK, null);
        if (bytesRead === 0) break;
        bytes += bytesRead;
        // The browser may still be writing: it stops counting at the bound.
        if (bytes > expect.maxBytes) break;
        await copy.write(buffer, 0, bytesRead);
      }
    } finally {
      await copy.close();
    }
    if (bytes <= expect.maxBytes) return { path: target, bytes };
    await rm(target, { force: true });
    return 'too big';
  } finally {
    await source.close();
  }
}
