import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, WEB_DIR } from './test-support/build.js';
import { startStack, type Stack } from './test-support/stack.js';

// The forms server sends the built web app compressed (the build's .br/.gz twins), and the plain
// bytes to a client that accepts no encoding.

let stack: Stack;

beforeAll(async () => {
  ensureBuilt();
  stack = await startStack([]);
});
afterAll(() => stack.stop());

async function get(path: string, acceptEncoding: string) {
  const res = await fetch(`${stack.url}${path}`, {
    headers: { 'accept-encoding': acceptEncoding },
  });
  const raw = Buffer.from(await res.arrayBuffer());
  return { res, raw };
}

describe('compressed web app', () => {
  it.each([
    ['/runtime.js', 'runtime.js'],
    ['/app.js', 'app.js'],
    ['/', 'index.html'],
    ['/f/acme/contact', join('f', 'index.html')],
  ])('serves %s as brotli, gzip or plain as the client accepts', async (path, file) => {
    const plain = readFileSync(join(WEB_DIR, file));
    const br = await get(path, 'br, gzip');
    expect(br.res.status).toBe(200);
    expect(br.res.headers.get('content-encoding')).toBe('br');
    // fetch decodes the body; the wire size is what the header and the twin file say.
    expect(br.raw.equals(plain)).toBe(true);
    expect(readFileSync(join(WEB_DIR, `${file}.br`)).length).toBeLessThan(plain.length / 2);

    const gz = await get(path, 'gzip');
    expect(gz.res.headers.get('content-encoding')).toBe('gzip');
    expect(gz.raw.equals(plain)).toBe(true);

    const identity = await get(path, 'identity');
    expect(identity.res.headers.get('content-encoding')).toBeNull();
    expect(identity.raw.equals(plain)).toBe(true);
  });
});
