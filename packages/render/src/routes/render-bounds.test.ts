import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../test-support/fixture-server.js';
import { startService, type TestService } from '../test-support/service.js';

// Bounds on the work one render can ask for (docs/configuration.md#bounds): each refused with 400
// naming the field and the limit, before Chromium spends time or memory on it; and a capture
// Chromium itself cannot make answers with its reason, never a bare 500.

let svc: TestService;
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({
    '/': html('<p>hi</p>'),
    '/tall': html('<div style="height:20000px;width:10px"></div>', '<style>body{margin:0}</style>'),
  });
  svc = await startService({ ALLOWED_HOSTS: 'localhost', MAX_CAPTURE_PIXELS: '4000000' });
});
afterAll(async () => {
  await svc.close();
  await site.close();
});

async function refused(body: Record<string, unknown>, message: RegExp): Promise<void> {
  const started = Date.now();
  const { status, body: answer } = await svc.post('/v1/render', {
    url: `${site.origin}/`,
    ...body,
  });
  expect(status).toBe(400);
  expect(answer['error']).toMatch(message);
  // Refused up front: no browser work was done for it.
  expect(Date.now() - started).toBeLessThan(2000);
}

describe('render bounds', () => {
  it('refuses a viewport, a scale or a pixel count over its limit, naming both', async () => {
    await refused(
      { profile: { viewport: { width: 16384, height: 16384 }, deviceScaleFactor: 4 } },
      /^profile\.viewport\.width must be a whole number from 1 to 8192 \(MAX_VIEWPORT\)$/,
    );
    await refused(
      { profile: { deviceScaleFactor: 8 } },
      /^profile\.deviceScaleFactor must be a number from 0\.25 to 4 \(MAX_DEVICE_SCALE_FACTOR\)$/,
    );
    await refused(
      { profile: { viewport: { width: 2000, height: 2000 }, deviceScaleFactor: 2 } },
      /^profile viewport 2000×2000 at scale 2 is 16,000,000 pixels, over MAX_CAPTURE_PIXELS \(4,000,000\)$/,
    );
    const batch = await svc.post('/v1/render/batch', {
      url: `${site.origin}/`,
      profiles: ['desktop', { deviceScaleFactor: 8 }],
    });
    expect(batch.status).toBe(400);
    expect(batch.body['error']).toMatch(/^profiles\[1\]\.deviceScaleFactor/);
  });

  it('refuses a paper larger than PDF can hold, or margins that leave no page', async () => {
    await refused(
      { format: 'pdf', profile: { paper: { width: '200000in', height: '11in' } } },
      /^profile\.paper\.width must be at most 200in/,
    );
    await refused(
      { format: 'pdf', profile: { name: 'a4', paper: { margin: { left: '5in', right: '5in' } } } },
      /^profile\.paper\.margin left and right must leave room on the page$/,
    );
  });

  it('refuses a full-page, clip or element capture over MAX_CAPTURE_PIXELS once it knows the size', async () => {
    const full = await svc.post('/v1/render', { url: `${site.origin}/tall`, fullPage: true });
    expect(full.status).toBe(400);
    expect(full.body['error']).toMatch(
      /^fullPage would capture 1280×20000 .* over MAX_CAPTURE_PIXELS \(4,000,000\)$/,
    );
    const clip = await svc.post('/v1/render', {
      url: `${site.origin}/`,
      clip: { x: 0, y: 0, width: 3000, height: 3000 },
    });
    expect(clip.status).toBe(400);
    expect(clip.body['error']).toMatch(/^clip would capture/);
    const element = await svc.post('/v1/render', { url: `${site.origin}/tall`, selector: 'div' });
    expect(element.status).toBe(200);
  });

  it("answers Chromium's reason when it cannot make the capture", async () => {
    const { status, body } = await svc.post('/v1/render', {
      url: `${site.origin}/`,
      clip: { x: 50000, y: 50000, width: 10, height: 10 },
    });
    expect(status).toBe(502);
    expect(body['error']).toMatch(/^capture failed: \S/);
  });
});
