import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type TestServer } from './test-support/fixture-server.js';

// Graceful shutdown of the real entry point (docs/sessions.md#behaviour-in-detail): on SIGTERM the
// service stops taking sessions, closes every live one as DELETE does (video stitched before the
// browser closes) and exits 0. Run as its own process, because signals are the point.

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const TOKEN = 'sigterm-token-0123456789abcdef';
let dir: string;
let fixture: TestServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'havn-sigterm-'));
  fixture = await startFixtureServer();
});
afterAll(async () => {
  await fixture.close();
  await rm(dir, { recursive: true, force: true });
});

describe('SIGTERM', () => {
  it('stitches the recording of a live session, then exits 0', async () => {
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx/esm'), MAIN], {
      env: {
        PATH: process.env['PATH'],
        BROWSER_API_TOKEN: TOKEN,
        PORT: '0',
        ARTIFACT_DIR: join(dir, 'artifacts'),
        ALLOWED_HOSTS: 'localhost',
        MAX_CONCURRENCY: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((resolve) => {
      child.on('exit', (code) => {
        resolve(code);
      });
    });
    const base = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
      child.on('exit', () => {
        reject(new Error(`service exited early: ${out}`));
      });
    });
    const created = await fetch(`${base}/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${fixture.url}/anim`,
        record: true,
        labels: { run: 'sigterm' },
      }),
    });
    expect(created.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // The browser was closed by us, after the video, not killed under us by the signal.
    expect(out).not.toMatch(/session browser exited/);
    const names = (await readdir(join(dir, 'artifacts'))).filter((f) => f.endsWith('.json'));
    const descriptors = await Promise.all(
      names.map(
        async (f) =>
          JSON.parse(await readFile(join(dir, 'artifacts', f), 'utf8')) as {
            id: string;
            contentType: string;
            labels: Record<string, string>;
          },
      ),
    );
    const video = descriptors.find((d) => d.contentType === 'video/mp4');
    expect(video?.labels).toEqual({ run: 'sigterm' });
    const bytes = await readFile(join(dir, 'artifacts', `${video!.id}.bin`));
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });
});
