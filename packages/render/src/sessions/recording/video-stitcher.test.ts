import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ffprobe } from '../test-support/ffprobe.js';
import { writeSolidJpeg } from '../test-support/solid-jpeg.js';
import { concatScript, jpegSize, stitchVideo } from './video-stitcher.js';

// The stitcher with real ffmpeg: irregular frames make a video as long as the recording, not as
// long as the frame count at some fixed rate; odd sizes are made even for libx264.

let dir: string;
const frames: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'havn-stitch-'));
  for (const [i, color] of ['red', 'green', 'blue'].entries()) {
    const path = join(dir, `f${i}.jpg`);
    await writeSolidJpeg(path, color, '201x101');
    frames.push(path);
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('video stitcher', () => {
  it('reads JPEG sizes', async () => {
    expect(jpegSize(await readFile(frames[0]!))).toEqual({ width: 200, height: 100 });
    // SOI, an APP0 segment to skip, then a progressive SOF2 of 201 × 101.
    const header = Buffer.from([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc2, 0x00, 0x11, 0x08, 0x00, 0x65,
      0x00, 0xc9, 0x03,
    ]);
    expect(jpegSize(header)).toEqual({ width: 201, height: 101 });
    expect(jpegSize(Buffer.from('not a jpeg'))).toBeUndefined();
  });

  it('gives each frame the time until the next, the last until the stop', () => {
    const script = concatScript(
      [
        { path: '/a.jpg', timestamp: 100.5 },
        { path: "/it's.jpg", timestamp: 101 },
      ],
      100,
      104,
    );
    expect(script).toBe(
      "ffconcat version 1.0\nfile '/a.jpg'\nduration 1.000000\nfile '/it'\\''s.jpg'\nduration 3.000000\nfile '/it'\\''s.jpg'\n",
    );
  });

  it('makes a 4-second H.264 mp4 from three irregular frames', async () => {
    const output = await stitchVideo({
      frames: [
        { path: frames[0]!, timestamp: 1000 },
        { path: frames[1]!, timestamp: 1000.2 },
        { path: frames[2]!, timestamp: 1003.1 },
      ],
      startTime: 1000,
      stopTime: 1004,
      dir,
      ffmpegPath: '/usr/bin/ffmpeg',
      timeoutMs: 60_000,
    });
    const mp4 = await readFile(output);
    expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const probe = await ffprobe(output);
    expect(probe.streams[0]).toMatchObject({
      codec_name: 'h264',
      pix_fmt: 'yuv420p',
      width: 200,
      height: 100,
    });
    expect(probe.duration).toBeGreaterThan(3.6);
    expect(probe.duration).toBeLessThan(4.4);
  });

  it('reports ffmpeg failures with its own message', async () => {
    await expect(
      stitchVideo({
        frames: [{ path: frames[0]!, timestamp: 1 }],
        startTime: 1,
        stopTime: 2,
        dir,
        ffmpegPath: '/nonexistent/ffmpeg',
        timeoutMs: 60_000,
      }),
    ).rejects.toThrow('ffmpeg could not be started (ENOENT: /nonexistent/ffmpeg)');
  });

  // docs/operations.md#ffmpeg-fails-at-stitch-time: an ffmpeg that dies by a signal, or that never
  // finishes, fails the stitch within its bound and says which.
  it('reports an ffmpeg killed by a signal', async () => {
    const killed = join(dir, 'ffmpeg-killed.sh');
    await writeFile(killed, '#!/bin/sh\nkill -KILL $$\n', { mode: 0o755 });
    await expect(
      stitchVideo({
        frames: [{ path: frames[0]!, timestamp: 1 }],
        startTime: 1,
        stopTime: 2,
        dir,
        ffmpegPath: killed,
        timeoutMs: 60_000,
      }),
    ).rejects.toThrow('ffmpeg was killed (SIGKILL)');
  });

  it('kills an ffmpeg that does not finish within its bound', async () => {
    const stuck = join(dir, 'ffmpeg-stuck.sh');
    await writeFile(stuck, '#!/bin/sh\nexec sleep 60\n', { mode: 0o755 });
    const started = Date.now();
    await expect(
      stitchVideo({
        frames: [{ path: frames[0]!, timestamp: 1 }],
        startTime: 1,
        stopTime: 2,
        dir,
        ffmpegPath: stuck,
        timeoutMs: 500,
      }),
    ).rejects.toThrow('ffmpeg did not finish within 500 ms');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
