import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// Turns the recorder's frames into an mp4 (docs/sessions.md#recording). Chromium sends a frame only
// when the page changes, so frames come at irregular times: a fixed-rate image2pipe would stretch
// or squeeze the session. ffmpeg's concat demuxer takes a duration per frame instead, so the
// video's timeline follows the frames' own timestamps, and the last frame is held up to the stop
// time.

export interface RecordedFrame {
  /** A JPEG file. */
  path: string;
  /** Capture time, seconds since the epoch. */
  timestamp: number;
}

export interface StitchInput {
  frames: readonly RecordedFrame[];
  /** When recording started and stopped, seconds since the epoch. */
  startTime: number;
  stopTime: number;
  /** Where the list file and the mp4 go. */
  dir: string;
  ffmpegPath: string;
  /** ffmpeg is killed past this, so closing a session never waits on a stuck encoder. */
  timeoutMs: number;
}

/** The pixel size of a baseline or progressive JPEG (its SOFn segment), or undefined. */
export function jpegSize(jpeg: Buffer): { width: number; height: number } | undefined {
  let offset = 2;
  while (offset + 9 < jpeg.length) {
    if (jpeg[offset] !== 0xff) return undefined;
    const marker = jpeg[offset + 1] ?? 0;
    const length = jpeg.readUInt16BE(offset + 2);
    const isSof = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (isSof)
      return { height: jpeg.readUInt16BE(offset + 5), width: jpeg.readUInt16BE(offset + 7) };
    offset += 2 + length;
  }
  return undefined;
}

/** The concat demuxer script: each frame lasts until the next one, the last until `stopTime`. */
export function concatScript(
  frames: readonly RecordedFrame[],
  startTime: number,
  stopTime: number,
): string {
  const lines = ['ffconcat version 1.0'];
  frames.forEach((frame, i) => {
    // The first frame stands for the page as it was when recording began.
    const from = i === 0 ? Math.min(startTime, frame.timestamp) : frame.timestamp;
    const until = frames[i + 1]?.timestamp ?? Math.max(stopTime, frame.timestamp);
    const duration = Math.max(0.001, until - from);
    lines.push(`file '${frame.path.replace(/'/g, "'\\''")}'`, `duration ${duration.toFixed(6)}`);
  });
  // The demuxer drops the last entry's duration unless the file is listed once more.
  const last = frames.at(-1);
  if (last) lines.push(`file '${last.path.replace(/'/g, "'\\''")}'`);
  return `${lines.join('\n')}\n`;
}

/** Stitches the frames into `<dir>/recording.mp4` (H.264, yuv420p, faststart) and returns its path. */
export async function stitchVideo(input: StitchInput): Promise<string> {
  const first = input.frames[0];
  if (!first) throw new Error('no frames to stitch');
  const size = jpegSize(await readFile(first.path));
  if (!size) throw new Error('first recorded frame is not a JPEG');
  // libx264 with yuv420p needs even dimensions; every frame is scaled to the first one's size
  // (rounded down to even) so a viewport change mid-session does not break the encoder.
  const width = Math.max(2, size.width - (size.width % 2));
  const height = Math.max(2, size.height - (size.height % 2));
  const list = join(input.dir, 'frames.ffconcat');
  const output = join(input.dir, 'recording.mp4');
  await writeFile(list, concatScript(input.frames, input.startTime, input.stopTime));
  const args = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'concat',
    '-safe',
    '0',
    '-i',
    list,
    '-vf',
    `scale=${width}:${height},format=yuv420p`,
    '-fps_mode',
    'vfr',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '23',
    '-pix_fmt',
    'yuv420p',
    '-movflags',
    '+faststart',
    output,
  ];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(input.ffmpegPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, input.timeoutMs);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new Error(`ffmpeg could not be started (${err.code ?? err.message}: ${input.ffmpegPath})`),
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else if (timedOut) reject(new Error(`ffmpeg did not finish within ${input.timeoutMs} ms`));
      else if (signal) reject(new Error(`ffmpeg was killed (${signal})`));
      else reject(new Error(`ffmpeg exited with ${code}: ${stderr.trim()}`));
    });
  });
  return output;
}
