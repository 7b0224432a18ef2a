import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  html,
  startCanary,
  startFixtureServer,
  type Canary,
  type FixtureServer,
} from '../test-support/fixture-server.js';
import { startService, type TestService } from '../test-support/service.js';
import { startTlsServer, type TlsServer } from '../test-support/tls-server.js';

// The private-address policy (docs/render.md#private-network-policy) end to end: real Chromium
// behind the real guard proxy. The canary listens on 127.0.0.1 and must never see a single
// connection; the fixture site is "public" only because ALLOWED_HOSTS=localhost lets that one name
// through.

let svc: TestService;
let site: FixtureServer;
let canary: Canary;
let tls: TlsServer;

/** Every way this suite spells the canary's loopback address. */
function spellings(port: number): string[] {
  return [
    `127.0.0.1:${port}`,
    `2130706433:${port}`,
    `0x7f000001:${port}`,
    `0177.0.0.1:${port}`,
    `127.1:${port}`,
    `[::ffff:7f00:1]:${port}`,
    `[::ffff:127.0.0.1]:${port}`,
    `[64:ff9b::7f00:1]:${port}`,
    `[::1]:${port}`,
    `0.0.0.0:${port}`,
  ];
}

async function refusals(): Promise<number> {
  const text = await (await svc.call('/metrics')).text();
  const line = /^havn_proxy_refusals_total (\d+)/m.exec(text);
  return Number(line?.[1] ?? 0);
}

beforeAll(async () => {
  canary = await startCanary();
  site = await startFixtureServer({
    '/ok': html('<p>public</p>'),
    '/redirect': (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${canary.port}/` });
      res.end();
    },
    '/redirect-mapped': (_req, res) => {
      res.writeHead(302, { location: `http://[::ffff:7f00:1]:${canary.port}/` });
      res.end();
    },
  });
  tls = await startTlsServer();
  svc = await startService({ ALLOWED_HOSTS: 'localhost' });
});

afterAll(async () => {
  expect(canary.connections()).toBe(0);
  await svc.close();
  await site.close();
  await canary.close();
  await tls.close();
});

describe('the early check of url', () => {
  it('lets an ALLOWED_HOSTS name through while its address stays refused', async () => {
    const ok = await svc.post('/v1/render', { url: `${site.origin}/ok` });
    expect(ok.status).toBe(200);
    const refused = await svc.post('/v1/render', { url: `http://127.0.0.1:${site.port}/ok` });
    expect(refused.status).toBe(400);
    expect(refused.code).toBe('RENDER_URL_PRIVATE');
    expect(refused.body.error).toBe(
      'url: host 127.0.0.1 resolves to 127.0.0.1, which is in the refused range loopback 127.0.0.0/8; ' +
        'to allow it, set ALLOWED_HOSTS=127.0.0.1 (this host only) or ALLOW_PRIVATE_NETWORK=1 ' +
        '(no private-network policy) on the render service',
    );
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[64:ff9b::a00:1]/',
    'https://224.0.0.1/',
  ])('refuses %s with 400 naming host, address and range', async (url) => {
    const { status, body } = await svc.post('/v1/render', { url });
    expect(status).toBe(400);
    expect(body.error).toMatch(/^url: host \S+ resolves to \S+, which is in the refused range .+/);
  });

  it('refuses every numeric and IPv6 spelling of loopback', async () => {
    for (const spelling of spellings(canary.port)) {
      const { status, body } = await svc.post('/v1/render', { url: `http://${spelling}/` });
      expect(status, spelling).toBe(400);
      expect(body.error, spelling).toMatch(/refused range/);
    }
  });

  it.each([
    'file:///etc/passwd',
    'chrome://version',
    'view-source:http://localhost/',
    'data:text/html,<p>x</p>',
    'javascript:alert(1)',
    'ftp://localhost/',
    'about:blank',
  ])('refuses the scheme of %s', async (url) => {
    const { status, code, body } = await svc.post('/v1/render', { url });
    expect(status).toBe(400);
    expect(code).toBe('RENDER_URL_SCHEME');
    expect(body.error).toMatch(/^url must use http or https/);
  });
});

describe('enforcement in the proxy', () => {
  it('tunnels HTTPS to an allowed host, and ignores insecureTls without ALLOW_INSECURE_TLS', async () => {
    const { status, code, body } = await svc.post('/v1/render', {
      url: `${tls.origin}/`,
      insecureTls: true,
    });
    expect(status).toBe(502);
    expect(code).toBe('RENDER_NAVIGATION_FAILED');
    expect(body.error).toMatch(/^navigation failed: net::ERR_CERT_/);
  });

  it('refuses an HTTPS url into private space before any tunnel is opened', async () => {
    const { status, body } = await svc.post('/v1/render', {
      url: `https://127.0.0.1:${tls.port}/`,
    });
    expect(status).toBe(400);
    expect(body.error).toMatch(/loopback/);
  });

  it('answers 400 for a redirect into private space', async () => {
    for (const path of ['/redirect', '/redirect-mapped']) {
      const { status, body } = await svc.post('/v1/render', { url: `${site.origin}${path}` });
      expect(status, path).toBe(400);
      expect(body.error).toMatch(
        /^navigation refused: host \S+ resolves to \S+, which is in the refused range .*loopback/,
      );
    }
  });

  it('keeps subresources, fetch, XHR, iframes, WebSockets and beacons away from the canary', async () => {
    const before = await refusals();
    const targets = spellings(canary.port);
    const tags = targets
      .map(
        (t) => `
        <img src="http://${t}/img.png">
        <script src="http://${t}/s.js"></script>
        <link rel="stylesheet" href="http://${t}/s.css">
        <iframe src="http://${t}/frame"></iframe>
        <iframe src="https://${t}/frame"></iframe>`,
      )
      .join('');
    const script = `<script>
      const targets = ${JSON.stringify(targets)};
      for (const t of targets) {
        fetch('http://' + t + '/fetch', { mode: 'no-cors' }).catch(() => {});
        fetch('https://' + t + '/fetch', { mode: 'no-cors' }).catch(() => {});
        const x = new XMLHttpRequest(); x.open('GET', 'http://' + t + '/xhr'); x.onerror = () => {}; x.send();
        try { const w = new WebSocket('ws://' + t + '/ws'); w.onerror = () => {}; } catch {}
        navigator.sendBeacon('http://' + t + '/beacon', 'x');
      }
    </script>`;
    for (const body of [
      { html: tags + script, waitForTimeout: 1000 },
      { html: tags + script, baseUrl: `${site.origin}/`, waitUntil: 'networkidle' },
    ]) {
      const { status } = await svc.post('/v1/render', body);
      expect(status).toBe(200);
    }
    expect(canary.connections()).toBe(0);
    // The refusals happened in the proxy, not silently somewhere else.
    expect((await refusals()) - before).toBeGreaterThanOrEqual(targets.length * 4);
  });

  it('refuses a main-frame navigation by script or meta refresh after load', async () => {
    const viaScript = await svc.post('/v1/render', {
      html: `<script>location.href = 'http://2130706433:${canary.port}/'</script>`,
      waitForTimeout: 800,
    });
    expect(viaScript.status).toBe(400);
    expect(viaScript.body.error).toMatch(/^navigation refused: .*loopback 127\.0\.0\.0\/8/);
    const viaMeta = await svc.post('/v1/render', {
      html: `<meta http-equiv="refresh" content="0;url=http://[::1]:${canary.port}/">`,
      waitForTimeout: 800,
    });
    expect(viaMeta.status).toBe(400);
    expect(canary.connections()).toBe(0);
  });
});
