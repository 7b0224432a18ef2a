import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Writes a one-frame JPEG of one colour at `size` (`WxH`) with real ffmpeg. */
export async function writeSolidJpeg(path: string, color: string, size: string): Promise<void> {
  await run('/usr/bin/ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    `color=${color}:s=${size}`,
    '-frames:v',
    '1',
    path,
  ]);
}
