import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonApi } from '../test-support/json-api.js';
import { ffprobeBytes } from './test-support/ffprobe.js';
import {
  SERVICE_TOKEN,
  startSessionTestApp,
  type SessionTestApp,
} from './test-support/session-test-app.js';

// The whole life of a recorded session, driven by puppeteer-core (a CDP client that is not the
// service's own Playwright) through the real door on port 0.

let t: SessionTestApp;

beforeAll(async () => {
  t = await startSessionTestApp();
});
afterAll(async () => {
  await t.close();
});

const api: JsonApi = (...args) => t.api(...args);

/** The mp4's length in seconds, after checking it plays everywhere (H.264, yuv420p). */
async function ffprobeDuration(bytes: Buffer): Promise<number> {
  const probe = await ffprobeBytes(bytes);
  expect(probe.streams[0]).toMatchObject({ codec_name: 'h264', pix_fmt: 'yuv420p' });
  return probe.duration;
}

describe('a recorded session, create → attach → drive → screenshot → delete', () => {
  it('records an mp4 as long as the session and returns every artifact', async () => {
    const created = await api('POST', '/v1/sessions', {
      url: `${t.fixture.url}/anim`,
      record: { fps: 15 },
      labels: { job: 'e2e' },
      profile: 'desktop',
    });
    // The session's length as its client sees it: from the 201 to the DELETE.
    const started = Date.now();
    expect(created.status).toBe(201);
    const session = created.body as {
      id: string;
      cdpUrl: string;
      recording: boolean;
      pages: number;
      attached: number;
      profile: string;
      createdAt: string;
      expiresAt: string;
      artifacts: unknown[];
    };
    expect(session).toMatchObject({
      recording: true,
      pages: 1,
      attached: 0,
      profile: 'desktop',
      artifacts: [],
    });
    expect(new Date(session.expiresAt).getTime() - new Date(session.createdAt).getTime()).toBe(
      60_000,
    );
    // The door URL carries the session's own token, never the service token.
    const door = new URL(session.cdpUrl);
    expect(door.protocol).toBe('ws:');
    expect(door.host).toBe(new URL(t.baseUrl).host);
    expect(door.pathname).toBe(`/v1/sessions/${session.id}/cdp`);
    expect(door.searchParams.get('token')).toHaveLength(32);
    expect(session.cdpUrl).not.toContain(SERVICE_TOKEN);

    const browser = await puppeteer.connect({
      browserWSEndpoint: session.cdpUrl,
      defaultViewport: null,
    });
    const [first] = await browser.pages();
    expect(await first!.evaluate('document.title')).toBe('anim');
    const listed = await api('GET', `/v1/sessions/${session.id}`);
    expect(listed.body).toMatchObject({ attached: 1, pages: 1 });
    expect(listed.body).not.toHaveProperty('cdpUrl');

    // Drive: a second page, navigated and evaluated; the recorder and screenshots follow it.
    const page = await browser.newPage();
    await page.goto(`${t.fixture.url}/`);
    expect(await page.evaluate('document.querySelector("#hello").textContent')).toBe(
      'hello from the fixture',
    );
    expect((await api('GET', `/v1/sessions/${session.id}`)).body).toMatchObject({ pages: 2 });

    const shot = await api('POST', `/v1/sessions/${session.id}/screenshot`, { label: 'after-nav' });
    expect(shot.status).toBe(200);
    expect(shot.body).toMatchObject({
      contentType: 'image/png',
      labels: { job: 'e2e', label: 'after-nav' },
    });
    const png = await t.bytes(shot.body['id'] as string);
    expect(png.readUInt32BE(16)).toBe(800);
    expect(png.readUInt32BE(20)).toBe(600);
    // The current page is the static one: it has no #box.
    const missing = await api('POST', `/v1/sessions/${session.id}/screenshot`, {
      selector: '#box',
    });
    expect(missing.status).toBe(400);
    expect(missing.code).toBe('RENDER_SESSION_SELECTOR_NOT_VISIBLE');
    expect(missing.body['error']).toBe('selector: no visible element matches "#box"');
    // Brought to front, the animated page is current again.
    await first!.bringToFront();
    const element = await api('POST', `/v1/sessions/${session.id}/screenshot`, {
      selector: '#box',
      format: 'jpeg',
    });
    expect(element.body).toMatchObject({ contentType: 'image/jpeg' });

    // A client stopping its own screencast does not stop the recorder's.
    const cdp = await first!.createCDPSession();
    await cdp.send('Page.startScreencast', { format: 'jpeg' });
    await cdp.send('Page.stopScreencast');
    await cdp.detach();
    const before = (await api('GET', `/v1/sessions/${session.id}`)).body['frames'] as number;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const during = await api('GET', `/v1/sessions/${session.id}`);
    expect(during.body['frames']).toBeGreaterThan(before + 10);

    const disconnected = new Promise<void>((resolve) =>
      browser.once('disconnected', () => {
        resolve();
      }),
    );
    const length = (Date.now() - started) / 1000;
    const deleted = await api('DELETE', `/v1/sessions/${session.id}`);
    expect(deleted.status).toBe(200);
    // The attached client is disconnected when its session closes.
    await disconnected;
    const artifacts = deleted.body['artifacts'] as {
      id: string;
      contentType: string;
      labels: object;
    }[];
    expect(artifacts.map((a) => a.contentType)).toEqual(['image/png', 'image/jpeg', 'video/mp4']);
    const video = artifacts[2]!;
    expect(video.labels).toEqual({ job: 'e2e' });
    const mp4 = await t.bytes(video.id);
    expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const duration = await ffprobeDuration(mp4);
    expect(
      Math.abs(duration - length) / length,
      `video ${duration} s, session ${length} s`,
    ).toBeLessThan(0.2);

    expect((await api('GET', `/v1/sessions/${session.id}`)).status).toBe(404);
    expect((await api('DELETE', `/v1/sessions/${session.id}`)).status).toBe(404);
    expect((await api('GET', '/v1/sessions')).body).toEqual({ sessions: [] });
  });
});
