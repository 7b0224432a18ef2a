import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Recorder, type FrameSource } from './recorder.js';
import { ffprobe } from '../test-support/ffprobe.js';
import { writeSolidJpeg } from '../test-support/solid-jpeg.js';

// The recorder's bookkeeping with frames delivered on a script (real JPEGs, real ffmpeg): the fps
// cap, maxFrames, the newest frame kept at stop, and a still page that never sends a frame.
// The live path (Chromium's screencast) is covered end to end in sessions.routes.test.ts.

let dir: string;
let jpeg: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'havn-recorder-'));
  const path = join(dir, 'still.jpg');
  await writeSolidJpeg(path, 'teal', '320x240');
  jpeg = await readFile(path);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A source that hands its frame callback to the test, like a screencast would. */
function scripted(): FrameSource & { emit(timestamp: number): void; stopped: boolean } {
  let push: ((frame: { data: Buffer; timestamp: number }) => void) | undefined;
  const source = {
    stopped: false,
    emit: (timestamp: number) => push?.({ data: jpeg, timestamp }),
    startScreencast: (_options: { quality: number }, onFrame: typeof push) => {
      push = onFrame;
      return Promise.resolve({
        stop: () => {
          source.stopped = true;
          return Promise.resolve();
        },
      });
    },
    still: () => Promise.resolve(jpeg),
  };
  return source;
}

async function recorderIn(
  name: string,
  options: { fps: number; maxFrames: number },
  clock: { t: number },
) {
  const framesDir = await mkdtemp(join(dir, `${name}-`));
  return new Recorder(framesDir, { quality: 80, ...options }, () => clock.t * 1000);
}

async function duration(path: string): Promise<number> {
  return (await ffprobe(path)).duration;
}

describe('Recorder', () => {
  it('keeps at most fps frames a second, and the newest one at stop', async () => {
    const clock = { t: 100 };
    const source = scripted();
    const recorder = await recorderIn('fps', { fps: 5, maxFrames: 1000 }, clock);
    await recorder.start(source);
    // 30 frames over one second: 5 a second are kept, the last one as well.
    for (let i = 0; i < 30; i++) source.emit(100 + i / 30);
    clock.t = 103;
    await recorder.stop();
    expect(recorder.frameCount).toBe(6);
    const video = await recorder.stitch({ path: '/usr/bin/ffmpeg', timeoutMs: 60_000 });
    expect(await duration(video!)).toBeCloseTo(3, 0);
  });

  it('stops at maxFrames and the video ends there', async () => {
    const clock = { t: 200 };
    const source = scripted();
    const recorder = await recorderIn('max', { fps: 30, maxFrames: 3 }, clock);
    await recorder.start(source);
    source.emit(200);
    source.emit(200.5);
    clock.t = 201;
    source.emit(201);
    expect(source.stopped).toBe(true);
    source.emit(202);
    clock.t = 205;
    const video = await recorder.stitch({ path: '/usr/bin/ffmpeg', timeoutMs: 60_000 });
    expect(recorder.frameCount).toBe(3);
    expect(await duration(video!)).toBeLessThan(1.5);
  });

  it('holds a still page for the whole recording when no frame ever came', async () => {
    const clock = { t: 300 };
    const recorder = await recorderIn('still', { fps: 10, maxFrames: 100 }, clock);
    await recorder.start(scripted());
    clock.t = 302;
    const video = await recorder.stitch({ path: '/usr/bin/ffmpeg', timeoutMs: 60_000 });
    expect(recorder.frameCount).toBe(1);
    expect(await duration(video!)).toBeCloseTo(2, 0);
  });
});
