import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What ffprobe says of a video: its duration in seconds and its streams' codec, format, size. */
export interface Probe {
  duration: number;
  streams: Record<string, unknown>[];
}

/** Probes the video file at `path` with the system's ffprobe. */
export async function ffprobe(path: string): Promise<Probe> {
  const { stdout } = await run('/usr/bin/ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'stream=codec_name,pix_fmt,width,height:format=duration',
    '-of',
    'json',
    path,
  ]);
  const probe = JSON.parse(stdout) as {
    format: { duration: string };
    streams: Record<string, unknown>[];
  };
  return { duration: Number(probe.format.duration), streams: probe.streams };
}

/** Probes video bytes (an artifact's) through a temporary file. */
export async function ffprobeBytes(bytes: Buffer): Promise<Probe> {
  const dir = await mkdtemp(join(tmpdir(), 'havn-probe-'));
  try {
    const file = join(dir, 'video.mp4');
    await writeFile(file, bytes);
    return await ffprobe(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
