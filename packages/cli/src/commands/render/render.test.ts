// `havn render …`: the built binary against the real render service (its own process, real
// Chromium) on loopback, judged with the readers the render tests use: the PNG header, poppler's
// pdfinfo and pdftotext, ffprobe, and Playwright driving a session through the printed cdpUrl.
import { execFile } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  RENDER_TOKEN,
  startFixtureSite,
  startRenderService,
  type FixtureSite,
  type RenderService,
} from '../../test-support/render-service.js';
import { havn, havnOnTerminal, startHavn, tempConfigDir } from '../../test-support/run-havn.js';

const exec = promisify(execFile);

let render: RenderService;
let site: FixtureSite;
let dir: { dir: string; cleanup: () => Promise<void> };
const run = (args: string[]) => havn(args, { configDir: dir.dir });

beforeAll(async () => {
  [render, site] = await Promise.all([startRenderService(), startFixtureSite()]);
});
afterAll(async () => {
  await Promise.all([render.close(), site.close()]);
});
beforeEach(async () => {
  dir = await tempConfigDir();
  const configured = await havn(['configure', 'render', '--url', render.url, '--with-token'], {
    configDir: dir.dir,
    input: RENDER_TOKEN,
  });
  expect(configured.code, configured.stderr).toBe(0);
});
afterEach(async () => {
  await dir.cleanup();
});

function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('havn render shot', () => {
  it('writes the PNG of a URL on a device, full page or one element', async () => {
    const phone = join(dir.dir, 'phone.png');
    const r = await run(['render', 'shot', site.url, '-o', phone, '--device', 'mobile']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Wrote .*phone\.png \(\d+ bytes, mobile, \d+ ms\)/);
    expect(pngSize(await readFile(phone)).width).toBe(390 * 3);
    const full = join(dir.dir, 'full.png');
    expect((await run(['render', 'shot', site.url, '-o', full, '--full-page'])).code).toBe(0);
    expect(pngSize(await readFile(full)).height).toBeGreaterThan(3000);
    const box = join(dir.dir, 'box.png');
    expect((await run(['render', 'shot', site.url, '-o', box, '--selector', '#box'])).code).toBe(0);
    expect(pngSize(await readFile(box))).toEqual({ width: 200, height: 100 });
  });

  it('sends a local file as html; -o - writes the bytes to a pipe but never to a terminal', async () => {
    const page = join(dir.dir, 'page.html');
    await writeFile(
      page,
      '<body style="margin:0"><div style="width:300px;height:50px" id="b"></div>',
    );
    const child = await exec(
      process.execPath,
      [
        join(import.meta.dirname, '../../../dist/main.js'),
        'render',
        'shot',
        page,
        '-o',
        '-',
        '--selector',
        '#b',
      ],
      { env: { PATH: process.env.PATH, HAVN_CONFIG_DIR: dir.dir }, encoding: 'buffer' },
    );
    expect(pngSize(child.stdout)).toEqual({ width: 300, height: 50 });
    // Its relative stylesheet loads only from --base-url: the file's directory is not served.
    await writeFile(join(dir.dir, 'wide.css'), '#b { width: 321px !important }');
    const styled = join(dir.dir, 'styled.html');
    await writeFile(
      styled,
      '<link rel="stylesheet" href="wide.css"><body style="margin:0"><div style="width:300px;height:50px" id="b"></div>',
    );
    for (const [extra, width] of [
      [[], 300],
      [['--base-url', `${site.url}assets/`], 321],
    ] as const) {
      const out = join(dir.dir, `styled-${String(width)}.png`);
      const r = await run(['render', 'shot', styled, '-o', out, '--selector', '#b', ...extra]);
      expect(r.code, r.stderr).toBe(0);
      expect(pngSize(await readFile(out)).width).toBe(width);
    }
    const tty = await havnOnTerminal(['render', 'shot', site.url, '-o', '-'], {
      configDir: dir.dir,
    });
    expect(tty.code).toBe(2);
    expect(tty.stdout).toContain('Refusing to write a PNG to a terminal');
    const missing = await run(['render', 'shot', 'nope.html', '-o', 'x.png']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("there is no file 'nope.html'");
  });

  it('says on stderr that a render slower than a second is under way, and nothing on stdout', async () => {
    const out = join(dir.dir, 'late.png');
    const r = await run(['render', 'shot', `${site.url}late`, '-o', out, '--wait-for', '#late']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Rendering ${site.url}late…\n`);
    expect(r.stdout).toBe('');
  });

  it('a wrong token exits 1 naming HAVN_RENDER_TOKEN', async () => {
    const r = await havn(['render', 'shot', site.url, '-o', join(dir.dir, 'x.png')], {
      configDir: dir.dir,
      env: { HAVN_RENDER_TOKEN: 'wrong-token' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('refused the token (401: missing or invalid token)');
    expect(r.stderr).toContain('HAVN_RENDER_TOKEN');
    expect(r.stderr).not.toContain(RENDER_TOKEN);
  });
});

describe('havn render pdf and batch', () => {
  it('pdf --footer page-numbers prints "Page N of M" on every page', async () => {
    const file = join(dir.dir, 'page.pdf');
    const r = await run(['render', 'pdf', site.url, '-o', file, '--footer', 'page-numbers']);
    expect(r.code, r.stderr).toBe(0);
    const info = await exec('pdfinfo', [file]);
    const pages = Number(/Pages:\s+(\d+)/.exec(info.stdout)?.[1]);
    expect(pages).toBeGreaterThan(1);
    const text = (await exec('pdftotext', ['-layout', file, '-'])).stdout;
    expect(text).toContain('Fixture page');
    expect(text).toContain(`Page ${String(pages)} of ${String(pages)}`);
  });

  it('batch writes one file per device into the directory', async () => {
    const out = join(dir.dir, 'shots');
    const r = await run(['render', 'batch', site.url, '--devices', 'desktop,mobile', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    expect((await readdir(out)).sort()).toEqual(['desktop.png', 'mobile.png']);
    expect(pngSize(await readFile(join(out, 'desktop.png'))).width).toBe(1280);
    expect(pngSize(await readFile(join(out, 'mobile.png'))).width).toBe(390 * 3);
  });
});

describe('havn render session', () => {
  it('keeps the lease alive, is driven through cdpUrl, and Ctrl-C closes it and saves the video', async () => {
    const video = join(dir.dir, 'session.mp4');
    const session = startHavn(['render', 'session', '--record', '--ttl', '6s', '--video', video], {
      configDir: dir.dir,
    });
    await session.waitFor((out) => /cdpUrl +ws:\/\//.test(out) && out.includes('liveUrl'), 60_000);
    const cdpUrl = /cdpUrl +(\S+)/.exec(session.stdout())![1]!;
    const id = /id +(\S+)/.exec(session.stdout())![1]!;
    // Past the 6 s lease: only the CLI's touches (every 2 s) keep the session.
    await new Promise((resolve) => setTimeout(resolve, 7500));
    const browser = await chromium.connectOverCDP(cdpUrl);
    try {
      const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
      await page.goto(site.url);
      expect(await page.title()).toBe('Fixture');
      await page.mouse.wheel(0, 800);
      await page.waitForTimeout(500);
      expect(await session.stop('SIGINT')).toBe(0);
    } finally {
      await browser.close().catch(() => undefined);
    }
    expect(session.stderr()).toContain(`Saved the recording to ${video}.`);
    const probe = await exec('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'stream=codec_name',
      '-of',
      'csv=p=0',
      video,
    ]);
    expect(probe.stdout.trim()).toBe('h264');
    const listed = await run(['render', 'artifacts', '--session', id, '--format', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ contentType: 'video/mp4', session: id }),
    );
  });
});
