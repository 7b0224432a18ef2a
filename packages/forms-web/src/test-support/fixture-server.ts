// A stand-in for the forms server (packages/forms) while it is being built: it speaks the wire
// format of spec 2 §4 and decisions §2 (CORS echo with credentials, 403 for an origin outside
// allowedOrigins, bearer organisation tokens, feeds newest first, read flag, export, VAPID) and
// serves WEB_DIR, so the runtime and the inbox are tested over real HTTP in a real browser.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

interface Form {
  id: string;
  name: string;
  allowedOrigins: string[];
  webhooks: { url: string; secret: string }[];
  versions: Record<string, unknown>[];
}

interface Submission {
  id: string;
  org: string;
  form: string;
  receivedAt: string;
  read: boolean;
  spam: boolean;
  preview: string;
  answers: Record<string, unknown>;
  submitFields: Record<string, unknown> | null;
  origin: string | null;
  referer: string | null;
  userAgent: string | null;
  ip: string;
  definitionVersion: number;
  body: string;
  deliveries: { id: string; kind: 'webhook'; target: string; status: string; attempts: number }[];
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
  '.json': 'application/json',
};

class Fail extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class FixtureFormsServer {
  readonly orgs = new Map<string, { tokens: Set<string> }>();
  readonly forms = new Map<string, Form>();
  readonly submissions: Submission[] = [];
  readonly subscriptions: unknown[] = [];
  redeliveries = 0;
  private server: Server | null = null;
  port = 0;

  constructor(private readonly webDir: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Listens on `port` (0: any free port); reusing the old port brings a stopped server back. */
  async start(port = this.port): Promise<void> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        const status = err instanceof Fail ? err.status : 500;
        const message = err instanceof Fail ? err.message : 'internal error';
        if (!res.headersSent) res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: message }));
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and drops open connections: to the browser, the server is down. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  }

  createOrg(slug: string): string {
    const token = randomBytes(24).toString('base64url');
    this.orgs.set(slug, { tokens: new Set([sha256(token)]) });
    return token;
  }

  putForm(org: string, id: string, form: Omit<Form, 'id' | 'versions'>, definition: object): void {
    const key = `${org}/${id}`;
    const versions = this.forms.get(key)?.versions ?? [];
    this.forms.set(key, {
      ...form,
      id,
      versions: [...versions, definition as Record<string, unknown>],
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    if (!url.pathname.startsWith('/api/')) return this.serveStatic(url.pathname, res);
    const parts = url.pathname.split('/').slice(2).map(decodeURIComponent);
    if (parts[0] === 'push' && parts[1] === 'vapid') {
      json(res, 200, { publicKey: VAPID_PUBLIC });
      return;
    }
    if (parts[0] !== 'orgs' || !parts[1]) throw new Fail(404, 'not found');
    const org = parts[1];
    const rest = parts.slice(2);
    if (rest[0] === 'forms' && rest[1] && (rest[2] === 'definition' || rest[2] === 'submissions')) {
      if (rest.length === 3) {
        const isPublic = rest[2] === 'definition' ? req.method === 'GET' : req.method === 'POST';
        if (isPublic || req.method === 'OPTIONS')
          return this.publicEndpoint(req, res, org, rest[1]);
      }
    }
    this.authorize(req, org);
    return this.admin(req, res, org, rest, url);
  }

  // spec 2 §4.1 and decisions §2: exact Origin echo with credentials, 403 without CORS headers.
  private async publicEndpoint(
    req: IncomingMessage,
    res: ServerResponse,
    org: string,
    formId: string,
  ): Promise<void> {
    const form = this.form(org, formId);
    const origin = req.headers.origin;
    if (origin === undefined ? req.method !== 'GET' : !form.allowedOrigins.includes(origin)) {
      throw new Fail(403, 'origin not allowed');
    }
    if (origin) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-allow-credentials', 'true');
      res.setHeader('vary', 'Origin');
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '',
      });
      res.end();
      return;
    }
    const version = form.versions.length;
    if (req.method === 'GET') {
      const definition = form.versions[version - 1];
      const submitUrl = `http://${req.headers.host ?? ''}/api/orgs/${org}/forms/${formId}/submissions`;
      json(res, 200, { ...definition, submit: { submitUrl, submitMethod: 'POST' } });
      return;
    }
    const body = await readBody(req);
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const { submitFields, ...answers } = parsed as { submitFields?: Record<string, unknown> };
    const id = randomUUID();
    this.submissions.push({
      id,
      org,
      form: formId,
      receivedAt: new Date(Date.now() + this.submissions.length).toISOString(),
      read: false,
      spam: typeof submitFields?._gotcha === 'string' && submitFields._gotcha !== '',
      preview: Object.values(answers)
        .filter((v) => typeof v === 'string')
        .join(' · ')
        .slice(0, 140),
      answers,
      submitFields: submitFields ?? null,
      origin: origin ?? null,
      referer: req.headers.referer ?? null,
      userAgent: req.headers['user-agent'] ?? null,
      ip: req.socket.remoteAddress ?? '',
      definitionVersion: version,
      body,
      deliveries: form.webhooks.map((w) => ({
        id: randomUUID(),
        kind: 'webhook' as const,
        target: w.url,
        status: 'failed',
        attempts: 1,
        lastStatus: 500,
        lastError: null,
        deliveredAt: null,
        nextAttemptAt: null,
      })),
    });
    json(res, 200, { status: 'received', id });
  }

  private authorize(req: IncomingMessage, org: string): void {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!token) throw new Fail(401, 'missing bearer token');
    const hash = sha256(token);
    const owner = [...this.orgs].find(([, o]) => o.tokens.has(hash));
    if (!owner) throw new Fail(401, 'invalid token');
    if (!this.orgs.has(org)) throw new Fail(owner[0] === org ? 404 : 403, 'forbidden');
    if (owner[0] !== org) throw new Fail(403, 'token of another organisation');
  }

  private async admin(
    req: IncomingMessage,
    res: ServerResponse,
    org: string,
    rest: string[],
    url: URL,
  ): Promise<void> {
    const ofOrg = this.submissions.filter((s) => s.org === org).reverse();
    const summary = ({ id, form, receivedAt, read, spam, preview }: Submission) => ({
      id,
      org,
      form,
      receivedAt,
      read,
      spam,
      preview,
    });
    const [a, formId, b, subId, c] = rest;
    if (a === 'submissions' && !formId) {
      json(res, 200, { submissions: ofOrg.map(summary) });
      return;
    }
    if (a === 'push') {
      const body = await readBody(req);
      this.subscriptions.push(JSON.parse(body));
      json(res, b === undefined && formId === 'subscribe' ? 201 : 204, {});
      return;
    }
    if (a !== 'forms') throw new Fail(404, 'not found');
    if (!formId) {
      const forms = [...this.forms].filter(([k]) => k.startsWith(`${org}/`));
      json(res, 200, {
        forms: forms.map(([, f]) => {
          const subs = ofOrg.filter((s) => s.form === f.id);
          return {
            id: f.id,
            name: f.name,
            description: '',
            submissions: subs.length,
            unread: subs.filter((s) => !s.read).length,
            lastSubmissionAt: subs[0]?.receivedAt ?? null,
            definitionVersion: f.versions.length,
          };
        }),
      });
      return;
    }
    const form = this.form(org, formId);
    if (!b) {
      json(res, 200, {
        form: { id: form.id, name: form.name },
        definition: form.versions.at(-1),
      });
      return;
    }
    if (b === 'definitions' && subId) {
      const def = form.versions[Number(subId) - 1];
      if (!def) throw new Fail(404, 'unknown definition version');
      json(res, 200, { version: Number(subId), definition: def });
      return;
    }
    if (b !== 'submissions') throw new Fail(404, 'not found');
    const subs = ofOrg.filter((s) => s.form === formId);
    if (!subId) {
      json(res, 200, { submissions: subs.map(summary) });
      return;
    }
    if (subId === 'export') {
      const names = [...new Set(subs.flatMap((s) => Object.keys(s.answers)))];
      const rows = [
        ['id', 'receivedAt', ...names],
        ...subs.map((s) => [
          s.id,
          s.receivedAt,
          ...names.map((n) => JSON.stringify(s.answers[n] ?? '')),
        ]),
      ];
      if (url.searchParams.get('format') === 'json') {
        json(
          res,
          200,
          subs.map((s) => s.answers),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
      res.end(rows.map((r) => r.map((v) => `"${v.replace(/"/g, '""')}"`).join(',')).join('\r\n'));
      return;
    }
    const sub = subs.find((s) => s.id === subId);
    if (!sub) throw new Fail(404, 'unknown submission');
    if (c === 'read' && req.method === 'POST') {
      sub.read = true;
      json(res, 200, { id: sub.id, read: true });
      return;
    }
    if (c === 'redeliver' && req.method === 'POST') {
      this.redeliveries++;
      for (const d of sub.deliveries) d.status = 'pending';
      json(res, 202, { id: sub.id });
      return;
    }
    const { body: _raw, ...record } = sub;
    json(res, 200, record);
  }

  private form(org: string, id: string): Form {
    const form = this.forms.get(`${org}/${id}`);
    if (!form) throw new Fail(404, 'unknown form');
    return form;
  }

  // WEB_DIR layout (docs/definition-format.md): /f/<org>/<form> is the hosted page.
  private async serveStatic(pathname: string, res: ServerResponse): Promise<void> {
    let file = pathname === '/' ? 'index.html' : pathname.slice(1);
    if (/^f\/[^/]+\/[^/]+\/?$/.test(file)) file = 'f/index.html';
    const path = normalize(join(this.webDir, file));
    if (!path.startsWith(this.webDir)) throw new Fail(404, 'not found');
    try {
      const bytes = await readFile(path);
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
      res.end(bytes);
    } catch {
      throw new Fail(404, 'not found');
    }
  }
}

// A valid P-256 public key (65 bytes, uncompressed point), base64url, as web-push generates them.
const VAPID_PUBLIC =
  'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(status === 204 ? undefined : JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 256 * 1024) throw new Fail(413, 'body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
