import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCanary, type Canary } from '../../test-support/fixture-server.js';
import { freePort } from '../../../../../test-support/ports.js';
import { attachToPage, rawClient, type CdpMessage } from '../test-support/cdp-client.js';
import {
  BROWSERS,
  startSessionTestApp,
  type SessionTestApp,
} from '../test-support/session-test-app.js';

// What an attacker holding one session token tried, each against both of Debian's builds: the
// door must refuse it, and the browser must not be able to do it even if the door let it by.

const refusedBy = (reply: CdpMessage, pattern: RegExp) => {
  expect(reply.error?.code).toBe(-32000);
  expect(reply.error?.message).toMatch(/^havn: /);
  expect(reply.error?.message).toMatch(pattern);
};

interface Proc {
  pid: number;
  ppid: number;
  uid: number;
  cmdline: string;
  status: string;
}

function processes(): Proc[] {
  const found: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const field = (name: string) =>
        Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
      found.push({ pid: Number(entry), ppid: field('PPid'), uid: field('Uid'), cmdline, status });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The processes whose command line names `text`, and all their descendants. */
function processTree(text: string): Proc[] {
  const all = processes();
  const tree = all.filter((p) => p.cmdline.includes(text));
  for (let grew = true; grew;) {
    const pids = new Set(tree.map((p) => p.pid));
    const children = all.filter((p) => pids.has(p.ppid) && !tree.includes(p));
    tree.push(...children);
    grew = children.length > 0;
  }
  return tree;
}

describe.each(BROWSERS)('an attacker with a session token, against %s', (chromiumPath) => {
  let t: SessionTestApp;
  let canary: Canary;
  let session: { id: string; cdpUrl: string };

  const api = (method: string, path: string, body?: unknown) => t.api(method, path, body);

  beforeAll(async () => {
    t = await startSessionTestApp({ chromiumPath, maxClients: 3 });
    canary = await startCanary();
    session = await t.openSession();
  });
  afterAll(async () => {
    await t.close();
    expect(canary.connections()).toBe(0);
    await canary.close();
  });

  it('cannot write a download outside the session folder, whatever path it names', async () => {
    const dir = t.manager.get(session.id)!.dir;
    const client = await rawClient(session.cdpUrl);
    try {
      const pageSession = await attachToPage(client);
      for (const downloadPath of ['.', '/tmp', `${dir}/../..`]) {
        const name = `havn-download-${Math.random().toString(36).slice(2)}.json`;
        const set = await client.command('Browser.setDownloadBehavior', {
          behavior: 'allow',
          downloadPath,
          eventsEnabled: true,
        });
        expect(set.error, downloadPath).toBeUndefined();
        await client.command(
          'Page.navigate',
          { url: `${t.fixture.url}/download?name=${name}` },
          pageSession,
        );
        await client.event(
          (e) => e.method === 'Browser.downloadProgress' && e.params?.['state'] === 'completed',
        );
        client.events.length = 0;
        // Kept from the session's own folder (which it then leaves) as an artifact.
        const kept = async () => {
          const { body } = await api('GET', `/v1/sessions/${session.id}`);
          return (body['artifacts'] as { id: string; labels: Record<string, string> }[]).find(
            (a) => a.labels['filename'] === name,
          );
        };
        await expect.poll(kept, { timeout: 10_000 }).toBeDefined();
        expect((await t.bytes((await kept())!.id)).toString()).toBe(`downloaded ${name}`);
        for (const outside of [process.cwd(), '/tmp', join(dir, '..')]) {
          expect(existsSync(join(outside, name)), `${downloadPath} → ${outside}`).toBe(false);
        }
      }
    } finally {
      client.close();
    }
  });

  it("runs the browser under a uid of its own, inside Chromium's sandbox", () => {
    const dir = t.manager.get(session.id)!.dir;
    const browsers = processTree(`--user-data-dir=${dir}/profile`);
    expect(browsers.length).toBeGreaterThan(0);
    if (process.getuid?.() !== 0) return;
    // As root the service hands each browser a uid from BROWSER_UIDS; it owns only its folder.
    for (const p of browsers) expect(p.uid, p.cmdline).toBeGreaterThanOrEqual(64000);
    const renderers = browsers.filter((p) => p.cmdline.includes('--type=renderer'));
    expect(renderers.length).toBeGreaterThan(0);
    // Renderers in namespaces of their own under a seccomp filter: Chromium's sandbox is on.
    for (const r of renderers) {
      expect(r.status, r.cmdline).toMatch(/^Seccomp:\s+2$/m);
      expect(r.cmdline).not.toContain('--no-sandbox');
    }
  });

  it('cannot open the DevTools frontend or drive a browser-internal page', async () => {
    const client = await rawClient(session.cdpUrl);
    // A file: page made behind the door's back (as any way one might appear would be): it would
    // read the server's disk into a page the client drives.
    const direct = await rawClient(t.manager.get(session.id)!.browserWsEndpoint);
    try {
      const pageSession = await attachToPage(client);
      const pages = await client.command('Target.getTargets');
      const page = (pages.result?.['targetInfos'] as { targetId: string; type: string }[]).find(
        (info) => info.type === 'page',
      )!;
      refusedBy(
        await client.command('Target.openDevTools', { targetId: page.targetId }),
        /DevTools frontend/,
      );
      refusedBy(
        await client.command('Target.getDevToolsTarget', { targetId: page.targetId }),
        /DevTools frontend/,
      );
      refusedBy(
        await client.command('Page.navigate', { url: 'file:///etc/passwd' }, pageSession),
        /only http\(s\) URLs/,
      );
      const made = await direct.command('Target.createTarget', { url: 'file:///etc/hostname' });
      const internal = String(made.result?.['targetId']);
      await expect
        .poll(async () => {
          const all = await direct.command('Target.getTargets');
          const infos = all.result?.['targetInfos'] as { targetId: string; url: string }[];
          return infos.find((info) => info.targetId === internal)?.url;
        })
        .toMatch(/^file:/);
      // Nor is its page socket open through the door.
      const pageDoor = session.cdpUrl.replace('/cdp?', `/cdp/page/${internal}?`);
      await expect(rawClient(pageDoor)).rejects.toThrow(/404/);
      // Attaching by id: the door asks the browser what the target shows before letting it by.
      refusedBy(
        await client.command('Target.attachToTarget', { targetId: internal, flatten: true }),
        /devtools:, chrome: and file: targets/,
      );
      // Attached by the browser itself (auto-attach): every command aimed at it is refused.
      await client.command('Target.setAutoAttach', {
        autoAttach: true,
        waitForDebuggerOnStart: false,
        flatten: true,
      });
      const event = await client.event(
        (e) =>
          e.method === 'Target.attachedToTarget' &&
          (e.params?.['targetInfo'] as { targetId?: string } | undefined)?.targetId === internal,
      );
      refusedBy(
        await client.command(
          'Runtime.evaluate',
          { expression: 'document.body.innerText' },
          String(event.params?.['sessionId']),
        ),
        /browser-internal page/,
      );
      // A second client, which never saw an event about it, asks to attach by id alone: the door
      // asks the browser what the target shows before it lets the attach through.
      const fresh = await rawClient(session.cdpUrl);
      try {
        refusedBy(
          await fresh.command('Target.attachToTarget', { targetId: internal, flatten: true }),
          /devtools:, chrome: and file: targets/,
        );
        refusedBy(
          await fresh.command('Target.activateTarget', { targetId: internal }),
          /devtools:, chrome: and file: targets/,
        );
      } finally {
        fresh.close();
      }
    } finally {
      client.close();
      direct.close();
    }
  });

  it('cannot make the browser dial hosts itself or listen on a port', async () => {
    const client = await rawClient(session.cdpUrl);
    try {
      refusedBy(
        await client.command('Target.setRemoteLocations', {
          locations: [{ host: '127.0.0.1', port: canary.port }],
        }),
        /outside the proxy/,
      );
      expect(
        (await client.command('Target.setDiscoverTargets', { discover: true })).error,
      ).toBeUndefined();
      const port = await freePort();
      refusedBy(await client.command('Tethering.bind', { port }), /listening port/);
      const reached = await new Promise<boolean>((resolve) => {
        const socket: Socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => {
          resolve(false);
        });
      });
      expect(reached).toBe(false);
      // Give a browser that would poll remote locations time to try.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(canary.connections()).toBe(0);
    } finally {
      client.close();
    }
  });

  it('cannot start a session on a page that redirects into private space', async () => {
    const before = ((await api('GET', '/v1/sessions')).body['sessions'] as unknown[]).length;
    const hop = `http://127.0.0.1:${canary.port}/`;
    const created = await api('POST', '/v1/sessions', {
      url: `${t.fixture.url}/redirect?to=${encodeURIComponent(hop)}`,
    });
    expect(created.status).toBe(400);
    expect(created.body['error']).toMatch(/^navigation refused: .*127\.0\.0\.1.*loopback/);
    expect(((await api('GET', '/v1/sessions')).body['sessions'] as unknown[]).length).toBe(before);
  });

  it('cannot make the service hold an oversized message, nor attach without bound', async () => {
    const rssBefore = process.memoryUsage().rss;
    const url = new URL(session.cdpUrl);
    const closeCode = await new Promise<number>((resolve, reject) => {
      const req = request(`http://${url.host}${url.pathname}${url.search}`, {
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
      });
      req.on('upgrade', (_res, socket: Socket) => {
        // A text frame that says it carries 250 MB; the door must not wait for it.
        const header = Buffer.alloc(14);
        header[0] = 0x81;
        header[1] = 0x80 | 127;
        header.writeBigUInt64BE(BigInt(250 * 1024 * 1024), 2);
        socket.write(Buffer.concat([header, Buffer.alloc(1024 * 1024, 0x20)]));
        socket.once('data', (chunk: Buffer) => {
          socket.destroy();
          resolve(chunk[0] === 0x88 ? chunk.readUInt16BE(2) : -1);
        });
      });
      req.on('error', reject);
      req.end();
    });
    expect(closeCode).toBe(1009);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * 1024 * 1024);

    // CDP_MAX_CLIENTS is 3 in this app: a fourth client is refused at the socket.
    const clients = [];
    try {
      for (let i = 0; i < 3; i++) clients.push(await rawClient(session.cdpUrl));
      await expect(rawClient(session.cdpUrl)).rejects.toThrow(/429/);
    } finally {
      for (const c of clients) c.close();
    }
    // A slot frees when a client leaves.
    await expect
      .poll(async () => (await api('GET', `/v1/sessions/${session.id}`)).body['attached'])
      .toBe(0);
    const again = await rawClient(session.cdpUrl);
    again.close();
  });
});
