import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import { chromium } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ComposeProject, logLines, waitHealthy } from './containers/compose.js';
import { ensureBaseImage } from './containers/debian-base.js';
import { kubePlay } from './containers/kube.js';
import { buildImage, IMAGES, podman, root, run } from './containers/podman.js';

// The images, compose.yaml and the Kubernetes manifests, run here as an operator would
// (docs/deploy.md#how-the-images-are-tested): podman builds both images from the Containerfile on a
// debian:trixie-slim made on this machine, podman-compose starts them, and every check goes
// through the published ports from the host.

const token = { render: randomBytes(16).toString('hex'), forms: randomBytes(16).toString('hex') };
const ports = { render: 0, forms: 0 };
/** Filled in beforeAll, once the ports are chosen; compose.yaml interpolates these. */
const vars: Record<string, string> = {};
const compose = new ComposeProject('havn-ct', vars);
let render: string;
let forms: string;

async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const renderUrl = (path: string) => `http://127.0.0.1:${ports.render}${path}`;
const formsUrl = (path: string) => `http://127.0.0.1:${ports.forms}${path}`;
const renderAuth = () => ({ authorization: `Bearer ${token.render}` });
const formsAuth = () => ({ authorization: `Bearer ${token.forms}` });

async function exitCode(container: string): Promise<number> {
  return Number(await podman(['inspect', '--format', '{{.State.ExitCode}}', container]));
}

beforeAll(async () => {
  await ensureBaseImage();
  await buildImage('render');
  await buildImage('forms');
  ports.render = await freePort();
  ports.forms = await freePort();
  Object.assign(vars, {
    BROWSER_API_TOKEN: token.render,
    FORM_ADMIN_TOKEN: token.forms,
    RENDER_PORT: String(ports.render),
    FORMS_PORT: String(ports.forms),
    ALLOW_PRIVATE_WEBHOOKS: '1',
  });
  await compose.down();
  await compose.up(['render', 'forms']);
  render = await compose.container('render');
  forms = await compose.container('forms');
  await Promise.all([waitHealthy(render), waitHealthy(forms)]);
}, 3_000_000);

afterAll(async () => {
  await compose.down();
}, 120_000);

describe('compose up', () => {
  test('both containers run as uid 10001 on a read-only root, with /data the one writable path', async () => {
    for (const container of [render, forms]) {
      expect(await podman(['exec', container, 'id', '-u'])).toBe('10001');
      expect(
        await podman(['inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', container]),
      ).toBe('true');
      const write = await run('podman', ['exec', container, 'touch', '/app/x']);
      expect(write.stderr).toMatch(/Read-only file system/);
      await podman(['exec', container, 'touch', '/data/x']);
    }
  });

  test('render starts in Chromium sandbox, its browsers bounded by the container, and neither service logs a warning or an error', async () => {
    const renderLog = await logLines(render);
    expect(renderLog.map((l) => l.msg)).toContain(
      "browsers run in Chromium's sandbox (user namespaces)",
    );
    // Not root in its image, render cannot give each browser a memory cgroup; the container's
    // own limit (compose.yaml's mem_limit) bounds them together, and render says so at info
    // level (docs/render.md#memory-bounds).
    expect(renderLog.map((l) => l.msg)).toContain(
      "browsers have no memory cgroup of their own (browsers run as the service user (not root, or BROWSER_UIDS=off)); the service's own memory limit, 4294967296 bytes, bounds them together (docs/render.md#memory-bounds)",
    );
    for (const line of [...renderLog, ...(await logLines(forms))]) {
      expect(line.level ?? 30, JSON.stringify(line)).toBeLessThan(40);
    }
  });

  test('the images carry a HEALTHCHECK, SIGTERM as stop signal and the OCI labels', async () => {
    for (const image of Object.values(IMAGES)) {
      // podman keeps a docker-format image's HEALTHCHECK beside its config, not in it.
      const [inspected] = JSON.parse(await podman(['image', 'inspect', image])) as {
        Healthcheck?: { Test: string[] };
        Config: { StopSignal?: string; Labels: Record<string, string> };
      }[];
      expect(inspected?.Healthcheck?.Test[0]).toBe('CMD');
      const labels = inspected?.Config.Labels ?? {};
      expect(inspected?.Config.StopSignal).toBe('SIGTERM');
      expect(labels['org.opencontainers.image.licenses']).toBe('MIT');
      expect(labels['org.opencontainers.image.version']).toMatch(/^\d+\.\d+\.\d+/);
      expect(labels['org.opencontainers.image.source']).toMatch(/^https:\/\//);
    }
  });

  test("each image carries its own service's production dependencies, no dev dependency and no npm", async () => {
    const contents = async (image: string) => {
      const out = await podman([
        'run',
        '--rm',
        '--entrypoint',
        'sh',
        image,
        '-c',
        'ls node_modules node_modules/@havn; command -v npm || true',
      ]);
      return out.split(/\s+/);
    };
    const renderHas = await contents(IMAGES.render);
    expect(renderHas).toEqual(expect.arrayContaining(['playwright-core', 'pdf-lib', 'pg']));
    const formsHas = await contents(IMAGES.forms);
    expect(formsHas).toEqual(expect.arrayContaining(['better-sqlite3', 'kysely', 'pg']));
    for (const name of ['better-sqlite3', 'kysely', 'nodemailer', 'forms'])
      expect(renderHas).not.toContain(name);
    for (const name of ['playwright-core', 'pdf-lib', 'turndown', 'render'])
      expect(formsHas).not.toContain(name);
    for (const name of ['vitest', 'typescript', 'esbuild', 'tsx', 'eslint', '/usr/bin/npm']) {
      expect(renderHas).not.toContain(name);
      expect(formsHas).not.toContain(name);
    }
  });
});

describe('docker run', () => {
  test('under a seccomp profile that refuses user namespaces, render says it has no sandbox and still serves', async () => {
    // Docker's default profile refuses unshare without CAP_SYS_ADMIN; this is the shipped profile
    // with that one call taken out (docs/deploy.md#chromium-sandbox).
    const profile = JSON.parse(
      readFileSync(join(root, 'deploy', 'seccomp', 'chromium.json'), 'utf8'),
    ) as { syscalls: { names: string[] }[] };
    for (const rule of profile.syscalls) rule.names = rule.names.filter((n) => n !== 'unshare');
    const dir = mkdtempSync(join(tmpdir(), 'havn-seccomp-'));
    const file = join(dir, 'no-userns.json');
    writeFileSync(file, JSON.stringify(profile));
    const name = 'havn-ct-no-userns';
    const port = await freePort();
    await run('podman', ['rm', '-f', '-v', name]);
    try {
      await podman([
        'run',
        '-d',
        '--name',
        name,
        '--read-only',
        '--cap-drop',
        'ALL',
        '--security-opt',
        `seccomp=${file}`,
        '-e',
        `BROWSER_API_TOKEN=${token.render}`,
        '-p',
        `127.0.0.1:${port}:3000`,
        IMAGES.render,
      ]);
      await waitHealthy(name);
      const log = await logLines(name);
      expect(log.find((l) => l.msg?.startsWith('browsers run'))).toMatchObject({
        level: 40,
        msg: expect.stringContaining(
          'browsers run without a sandbox: this process cannot create user namespaces',
        ) as string,
      });
      const res = await fetch(`http://127.0.0.1:${port}/v1/render`, {
        method: 'POST',
        headers: { ...renderAuth(), 'content-type': 'application/json' },
        body: JSON.stringify({ html: '<p>no sandbox</p>' }),
      });
      expect(res.status).toBe(200);
    } finally {
      await run('podman', ['rm', '-f', '-v', '-t', '30', name]);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});

let artifact = { url: '', bytes: Buffer.alloc(0) };
let submissionId = '';

describe('render through its container', () => {
  test('a PNG and a PDF of supplied HTML', async () => {
    const png = await fetch(renderUrl('/v1/render'), {
      method: 'POST',
      headers: { ...renderAuth(), 'content-type': 'application/json' },
      body: JSON.stringify({ html: '<h1>Hello from a container</h1>', profile: 'desktop' }),
    });
    expect(png.status).toBe(200);
    const shot = (await png.json()) as { artifact: { url: string } };
    const bytes = Buffer.from(
      await (await fetch(renderUrl(shot.artifact.url), { headers: renderAuth() })).arrayBuffer(),
    );
    expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(bytes.readUInt32BE(16)).toBe(1280);
    artifact = { url: shot.artifact.url, bytes };

    const pdf = await fetch(renderUrl('/v1/render'), {
      method: 'POST',
      headers: { ...renderAuth(), 'content-type': 'application/json' },
      body: JSON.stringify({ html: '<p>Invoice 42</p>', profile: 'a4', format: 'pdf' }),
    });
    expect(pdf.status).toBe(200);
    const doc = (await pdf.json()) as { artifact: { url: string } };
    const pdfBytes = Buffer.from(
      await (await fetch(renderUrl(doc.artifact.url), { headers: renderAuth() })).arrayBuffer(),
    );
    expect(pdfBytes.subarray(0, 5).toString()).toBe('%PDF-');
  });

  test('a session driven by Playwright through its cdpUrl', async () => {
    const res = await fetch(renderUrl('/v1/sessions'), { method: 'POST', headers: renderAuth() });
    expect(res.status).toBe(201);
    const session = (await res.json()) as { id: string; cdpUrl: string };
    expect(session.cdpUrl).toContain(`127.0.0.1:${ports.render}`);
    const browser = await chromium.connectOverCDP(session.cdpUrl);
    try {
      const context = browser.contexts()[0] ?? (await browser.newContext());
      const page = context.pages()[0] ?? (await context.newPage());
      await page.setContent(`<button onclick="this.textContent = 'clicked'">click me</button>`);
      await page.click('button');
      expect(await page.textContent('button')).toBe('clicked');
    } finally {
      await browser.close();
    }
    const closed = await fetch(renderUrl(`/v1/sessions/${session.id}`), {
      method: 'DELETE',
      headers: renderAuth(),
    });
    expect(closed.status).toBe(200);
  });
});

describe('forms through its container', () => {
  test('a form, a submission and its signed webhook received on the host', async () => {
    // The receiver listens on the compose network's gateway, the host's address on that
    // network, so only containers of this machine reach it.
    const gateway = await compose.gateway();
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const received = new Promise<{ body: string; headers: Record<string, string> }>((resolve) => {
      receiver = createHttpServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          res.writeHead(204).end();
          resolve({
            body: Buffer.concat(chunks).toString(),
            headers: req.headers as Record<string, string>,
          });
        });
      });
    });
    const hookPort = await freePort(gateway);
    await new Promise<void>((resolve) => receiver?.listen(hookPort, gateway, resolve));

    const json = { ...formsAuth(), 'content-type': 'application/json' };
    const org = await fetch(formsUrl('/api/orgs'), {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ slug: 'acme', name: 'Acme' }),
    });
    expect(org.status).toBe(201);
    const form = await fetch(formsUrl('/api/orgs/acme/forms/contact'), {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({
        name: 'Contact',
        allowedOrigins: ['http://localhost:8080'],
        webhooks: [{ url: `http://${gateway}:${hookPort}/hooks/havn`, secret }],
        definition: {
          intro: { title: 'Contact us' },
          questions: [{ logicalName: 'name', type: 'text', label: 'Name' }],
        },
      }),
    });
    expect(form.status).toBe(200);
    const submitted = await fetch(formsUrl('/api/orgs/acme/forms/contact/submissions'), {
      method: 'POST',
      headers: { origin: 'http://localhost:8080', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada' }),
    });
    expect(submitted.status).toBe(200);
    submissionId = ((await submitted.json()) as { id: string }).id;

    const hook = await received;
    const event = new Webhook(secret).verify(hook.body, hook.headers) as {
      type: string;
      data: { id: string; answers: { name: string } };
    };
    expect(event.type).toBe('submission.created');
    expect(event.data).toMatchObject({ id: submissionId, answers: { name: 'Ada' } });
  });
});

let receiver: Server | undefined;
afterAll(() => {
  receiver?.close();
});

describe('restart and stop', () => {
  test('after a restart of both containers the artifact and the submission are still there', async () => {
    expect(artifact.url).not.toBe('');
    expect(submissionId).not.toBe('');
    await podman(['restart', '-t', '30', render, forms], { timeoutMs: 120_000 });
    await Promise.all([waitHealthy(render), waitHealthy(forms)]);
    const again = await fetch(renderUrl(artifact.url), { headers: renderAuth() });
    expect(again.status).toBe(200);
    expect(Buffer.from(await again.arrayBuffer()).equals(artifact.bytes)).toBe(true);
    const feed = await fetch(formsUrl('/api/orgs/acme/forms/contact/submissions'), {
      headers: formsAuth(),
    });
    const { submissions } = (await feed.json()) as { submissions: { id: string }[] };
    expect(submissions.map((s) => s.id)).toContain(submissionId);
  }, 300_000);

  test('SIGTERM stops both with exit code 0', async () => {
    // Running, not starting: a signal before the service has its handlers ends it with 143.
    await Promise.all([waitHealthy(render), waitHealthy(forms)]);
    await podman(['stop', '-t', '30', render, forms], { timeoutMs: 120_000 });
    expect(await exitCode(render)).toBe(0);
    expect(await exitCode(forms)).toBe(0);
    const renderLog = await logLines(render);
    expect(renderLog.map((l) => l.msg)).toContain('shutting down');
  }, 300_000);
});

/** Polls `url` until it answers 200, as a readiness probe would. */
async function answers(url: string, deadlineMs = 120_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  let last = '';
  while (Date.now() < until) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} never answered 200 (last: ${last})`);
}

describe('Kubernetes manifests', () => {
  test('podman kube play runs them: both answer their probe paths, non-root on a read-only root', async () => {
    const pods = await kubePlay(
      { BROWSER_API_TOKEN: token.render, FORM_ADMIN_TOKEN: token.forms },
      () => freePort(),
    );
    try {
      await Promise.all([
        answers(pods.url('havn-render', '/healthz')),
        answers(pods.url('havn-forms', '/api/health')),
      ]);
      for (const container of ['havn-render-pod-0-render', 'havn-forms-pod-0-forms']) {
        expect(await podman(['exec', container, 'id', '-u'])).toBe('10001');
        expect(
          await podman(['inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', container]),
        ).toBe('true');
      }
      // The token came from the Secret: without it the answer is 401.
      const profiles = await fetch(pods.url('havn-render', '/v1/profiles'), {
        headers: renderAuth(),
      });
      expect(profiles.status).toBe(200);
    } finally {
      await pods.down();
    }
  }, 300_000);
});

describe('compose --profile cluster', () => {
  // Two render and two forms instances on PostgreSQL behind nginx, every image built here from
  // Debian's packages (docs/deploy.md#the-cluster-profile). podman-compose ignores profiles and
  // depends_on conditions, so the test starts PostgreSQL, waits for it, then names the rest.
  const clusterVars: Record<string, string> = {};
  const cluster = new ComposeProject('havn-cl', clusterVars);
  const lb = { forms: 0, render: 0 };
  const viaRender = (path: string) => `http://127.0.0.1:${lb.render}${path}`;
  const viaForms = (path: string) => `http://127.0.0.1:${lb.forms}${path}`;
  let balancer = '';

  /** The instances that answered `request` (method and path), from the balancer's access log. */
  async function upstreamsOf(request: RegExp): Promise<Set<string>> {
    const log = await run('podman', ['logs', balancer]);
    const answered = log.stdout
      .split('\n')
      .filter((line) => request.test(line))
      .map((line) => /upstream=(\S+)/.exec(line)?.[1] ?? '');
    return new Set(answered);
  }

  beforeAll(async () => {
    await buildImage('postgres');
    await buildImage('nginx');
    lb.forms = await freePort();
    lb.render = await freePort();
    Object.assign(clusterVars, {
      BROWSER_API_TOKEN: token.render,
      FORM_ADMIN_TOKEN: token.forms,
      POSTGRES_PASSWORD: randomBytes(16).toString('hex'),
      FORMS_LB_PORT: String(lb.forms),
      RENDER_LB_PORT: String(lb.render),
    });
    await cluster.down();
    await cluster.up(['postgres']);
    await waitHealthy(await cluster.container('postgres'));
    await cluster.up(['forms-1', 'forms-2', 'render-1', 'render-2', 'lb']);
    const instances = await Promise.all(
      ['forms-1', 'forms-2', 'render-1', 'render-2'].map((s) => cluster.container(s)),
    );
    await Promise.all(instances.map((c) => waitHealthy(c)));
    balancer = await cluster.container('lb');
    await Promise.all([answers(viaRender('/healthz')), answers(viaForms('/api/health'))]);
  }, 900_000);

  afterAll(async () => {
    await cluster.down();
  }, 120_000);

  test('a render through the balancer: its artifact fetched through it from both instances, 200 every time', async () => {
    const res = await fetch(viaRender('/v1/render'), {
      method: 'POST',
      headers: { ...renderAuth(), 'content-type': 'application/json' },
      body: JSON.stringify({ html: '<h1>Rendered once, served by both</h1>', profile: 'desktop' }),
    });
    expect(res.status).toBe(200);
    const { artifact: made } = (await res.json()) as { artifact: { id: string; url: string } };
    const fetched: { status: number; bytes: Buffer }[] = [];
    for (let i = 0; i < 20; i++) {
      const got = await fetch(viaRender(made.url), { headers: renderAuth() });
      fetched.push({ status: got.status, bytes: Buffer.from(await got.arrayBuffer()) });
    }
    expect(fetched.map((f) => f.status)).toEqual(Array<number>(20).fill(200));
    const first = fetched[0]?.bytes ?? Buffer.alloc(0);
    expect(first.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    for (const f of fetched) expect(f.bytes.equals(first)).toBe(true);
    // Round robin with no stickiness: both instances served the artifact.
    expect((await upstreamsOf(new RegExp(`"GET /v1/artifacts/${made.id} `))).size).toBe(2);
  });

  test('a session created through the balancer, driven by Playwright through its cdpUrl', async () => {
    const res = await fetch(viaRender('/v1/sessions'), { method: 'POST', headers: renderAuth() });
    expect(res.status).toBe(201);
    const session = (await res.json()) as { id: string; cdpUrl: string };
    // The balancer's address, never an instance's.
    expect(new URL(session.cdpUrl).host).toBe(`127.0.0.1:${lb.render}`);
    const browser = await chromium.connectOverCDP(session.cdpUrl);
    try {
      const context = browser.contexts()[0] ?? (await browser.newContext());
      const page = context.pages()[0] ?? (await context.newPage());
      await page.setContent(`<button onclick="this.textContent = 'clicked'">click me</button>`);
      await page.click('button');
      expect(await page.textContent('button')).toBe('clicked');
    } finally {
      await browser.close();
    }
    // Whichever instance each request reaches, the session is found and closed.
    for (let i = 0; i < 4; i++) {
      const seen = await fetch(viaRender(`/v1/sessions/${session.id}`), { headers: renderAuth() });
      expect(seen.status).toBe(200);
    }
    const closed = await fetch(viaRender(`/v1/sessions/${session.id}`), {
      method: 'DELETE',
      headers: renderAuth(),
    });
    expect(closed.status).toBe(200);
  });

  test('forms ingest through the balancer: every submission stored once, by both instances', async () => {
    const json = { ...formsAuth(), 'content-type': 'application/json' };
    const org = await fetch(viaForms('/api/orgs'), {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ slug: 'cluster', name: 'Cluster' }),
    });
    expect(org.status).toBe(201);
    const form = await fetch(viaForms('/api/orgs/cluster/forms/signup'), {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({
        name: 'Signup',
        allowedOrigins: ['http://localhost:8080'],
        definition: {
          intro: { title: 'Sign up' },
          questions: [{ logicalName: 'name', type: 'text', label: 'Name' }],
        },
      }),
    });
    expect(form.status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const submitted = await fetch(viaForms('/api/orgs/cluster/forms/signup/submissions'), {
        method: 'POST',
        headers: { origin: 'http://localhost:8080', 'content-type': 'application/json' },
        body: JSON.stringify({ name: `visitor ${i}` }),
      });
      expect(submitted.status).toBe(200);
      ids.push(((await submitted.json()) as { id: string }).id);
    }
    const feed = await fetch(viaForms('/api/orgs/cluster/forms/signup/submissions'), {
      headers: formsAuth(),
    });
    expect(feed.status).toBe(200);
    const { submissions } = (await feed.json()) as { submissions: { id: string }[] };
    expect(submissions.map((s) => s.id).sort()).toEqual([...ids].sort());
    expect(
      (await upstreamsOf(/"POST \/api\/orgs\/cluster\/forms\/signup\/submissions /)).size,
    ).toBe(2);
  });
});
