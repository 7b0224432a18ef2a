import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@havn/shared';
import { composeServer } from '../compose.js';
import { loadConfig } from '../config.js';
import type { App } from '../server-context.js';
import { jsonApi, type JsonApi } from '../test-support/json-api.js';
import { sessionsExtension } from './sessions-extension.js';
import { ffprobe } from './test-support/ffprobe.js';
import { startFixtureServer, type TestServer } from './test-support/fixture-server.js';

// A recorded session's faults at close (docs/operations.md#render), in the real service: its
// browser SIGKILLed with a client attached, and ffmpeg killed, missing or stuck when the video is
// stitched. FFMPEG_PATH is a script of this test's own, swapped between cases.

const TOKEN = 'service-token-session-faults-0123';
// Long enough for a real stitch of a few frames on a loaded two-core machine (it took over 2 s
// there), short enough that the stuck case stays quick.
const STITCH_TIMEOUT_MS = 8000;
let app: App;
let api: JsonApi;
let base: string;
let dir: string;
let ffmpeg: string;
let fixture: TestServer;
const logs: string[] = [];

beforeAll(async () => {
  fixture = await startFixtureServer();
  dir = await mkdtemp(join(tmpdir(), 'havn-session-faults-'));
  ffmpeg = join(dir, 'ffmpeg');
  await useFfmpeg('exec /usr/bin/ffmpeg "$@"');
  const config = loadConfig({
    PATH: process.env['PATH'],
    BROWSER_API_TOKEN: TOKEN,
    ARTIFACT_DIR: join(dir, 'artifacts'),
    ALLOWED_HOSTS: 'localhost',
    FFMPEG_PATH: ffmpeg,
    // The tests count the session's own browser: no pooled one beside it.
    SESSION_POOL_SIZE: '0',
  });
  app = await composeServer({
    config,
    log: createLogger({
      name: 'session-faults-test',
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          logs.push(chunk.toString());
          done();
        },
      }),
    }),
    extensions: [sessionsExtension({ reaperIntervalMs: 200, stitchTimeoutMs: STITCH_TIMEOUT_MS })],
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  api = jsonApi(base, { authorization: `Bearer ${TOKEN}` });
});

afterAll(async () => {
  await app.close();
  await fixture.close();
  await rm(dir, { recursive: true, force: true });
});

/** Makes FFMPEG_PATH a shell script with this body (undefined: no file at all). */
async function useFfmpeg(body: string | undefined): Promise<void> {
  await rm(ffmpeg, { force: true });
  if (body === undefined) return;
  await writeFile(ffmpeg, `#!/bin/sh\n${body}\n`);
  await chmod(ffmpeg, 0o755);
}

/** Opens a recorded session on an animated page and waits for its first frames. */
async function recordedSession(): Promise<{ id: string; cdpUrl: string }> {
  const created = await api('POST', '/v1/sessions', { record: true, url: `${fixture.url}/anim` });
  expect(created.status).toBe(201);
  const id = created.body['id'] as string;
  await expect
    .poll(async () => (await api('GET', `/v1/sessions/${id}`)).body['frames'], { timeout: 15_000 })
    .toBeGreaterThanOrEqual(3);
  return { id, cdpUrl: created.body['cdpUrl'] as string };
}

/**
 * The session browsers this process launched: Chromium's browser process (no `--type=`), with a
 * DevTools port, a child of this process or of the shell wrapper Debian installs as the binary.
 */
function sessionBrowserPids(): number[] {
  const read = (pid: string, file: string) => {
    try {
      return readFileSync(`/proc/${pid}/${file}`, 'latin1');
    } catch {
      return '';
    }
  };
  const parentOf = (pid: string) => {
    const stat = read(pid, 'stat');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' ? undefined : ppid;
  };
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      const args = read(pid, 'cmdline');
      if (!args.includes('--remote-debugging-port') || args.includes('--type=')) return false;
      // Debian's /usr/bin/chromium* is a `/bin/sh -e` script that runs the binary as its child.
      if (args.startsWith('/bin/sh\0')) return false;
      const parent = parentOf(pid);
      return (
        parent !== undefined &&
        (Number(parent) === process.pid || Number(parentOf(parent)) === process.pid)
      );
    })
    .map(Number);
}

function closeLine(id: string): string | undefined {
  return logs.find((l) => l.includes(`"session":"${id}"`) && l.includes('session closed'));
}

async function closedRecord(id: string) {
  const record = await api('GET', `/v1/sessions/${id}/events`);
  return record.body as { state: string; closedBecause?: string; events: { message: string }[] };
}

describe('a session browser killed while recording, a client attached', () => {
  it('closes the client socket, stitches the frames so far into an mp4, and logs why', async () => {
    const { id, cdpUrl } = await recordedSession();
    const url = new URL(cdpUrl);
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}${url.pathname}${url.search}`);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const socketClosed = new Promise<{ code: number; reason: string }>((resolve) => {
      ws.once('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
      });
    });
    const [pid, ...others] = sessionBrowserPids();
    expect(others).toEqual([]);
    process.kill(pid!, 'SIGKILL');

    // The client is told: its socket closes (it does not hang on a dead browser).
    const closed = await socketClosed;
    expect(closed.code).toBeGreaterThanOrEqual(1000);

    await expect
      .poll(async () => (await api('GET', `/v1/sessions/${id}`)).status, { timeout: 15_000 })
      .toBe(404);
    await expect
      .poll(() => closeLine(id), { timeout: 15_000 })
      .toContain('session closed (browser exited)');
    const listed = (await api('GET', `/v1/artifacts?session=${id}`)).body['artifacts'] as {
      id: string;
      contentType: string;
    }[];
    expect(listed).toMatchObject([{ contentType: 'video/mp4' }]);
    expect(closeLine(id)).toContain(listed[0]!.id);
    // A real video of what was recorded before the kill.
    const probe = await ffprobe(join(dir, 'artifacts', `${listed[0]!.id}.bin`));
    expect(probe.streams[0]).toMatchObject({ codec_name: 'h264' });
    expect(probe.duration).toBeGreaterThan(0);
    expect(await closedRecord(id)).toMatchObject({
      state: 'closed',
      closedBecause: 'browser exited',
    });
    expect(sessionBrowserPids()).toEqual([]);
    // Healthy afterwards: no session left, and a new one opens.
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { sessions: number }).sessions).toBe(0);
    const next = await recordedSession();
    expect((await api('DELETE', `/v1/sessions/${next.id}`)).body['artifacts']).toMatchObject([
      { contentType: 'video/mp4' },
    ]);
  });
});

describe('ffmpeg fails at stitch time', () => {
  const cases: { name: string; script: string | undefined; says: string }[] = [
    { name: 'killed', script: 'kill -KILL $$', says: 'ffmpeg was killed (SIGKILL)' },
    { name: 'missing', script: undefined, says: 'ffmpeg could not be started (ENOENT: ' },
    {
      name: 'stuck',
      script: 'exec sleep 60',
      says: `ffmpeg did not finish within ${STITCH_TIMEOUT_MS} ms`,
    },
  ];
  for (const { name, script, says } of cases) {
    it(`closes the session on DELETE within its bound and records why there is no video (${name})`, async () => {
      const { id } = await recordedSession();
      await useFfmpeg(script);
      try {
        const started = Date.now();
        const deleted = await api('DELETE', `/v1/sessions/${id}`);
        expect(deleted.status).toBe(200);
        expect(deleted.body).toEqual({ id, artifacts: [] });
        // The stitch bound, plus closing the browser.
        expect(Date.now() - started).toBeLessThan(STITCH_TIMEOUT_MS + 8000);
      } finally {
        await useFfmpeg('exec /usr/bin/ffmpeg "$@"');
      }
      const record = await closedRecord(id);
      expect(record).toMatchObject({ state: 'closed', closedBecause: 'deleted' });
      expect(record.events.map((e) => e.message)).toEqual([
        expect.stringContaining(`the recording could not be stitched into a video: ${says}`),
      ]);
      expect(closeLine(id)).toContain('session closed (deleted)');
      expect(sessionBrowserPids()).toEqual([]);
      // The service records the next session as before.
      if (name === 'stuck') {
        const next = await recordedSession();
        const done = await api('DELETE', `/v1/sessions/${next.id}`);
        expect(done.body['artifacts']).toMatchObject([{ contentType: 'video/mp4' }]);
      }
    });
  }
});
