// `havn configure forms` and `havn forms …`: the built binary against the real forms server on
// loopback (test-support/forms-service.ts), with an organisation token.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CONTACT_DEFINITION,
  startFormsService,
  type FormsService,
} from '../../test-support/forms-service.js';
import { havn, startHavn, tempConfigDir } from '../../test-support/run-havn.js';

let forms: FormsService;
let dir: { dir: string; cleanup: () => Promise<void> };
const run = (args: string[], options: { env?: Record<string, string>; input?: string } = {}) =>
  havn(args, { configDir: dir.dir, ...options });

beforeAll(async () => {
  forms = await startFormsService();
});
afterAll(async () => {
  await forms.close();
});
beforeEach(async () => {
  dir = await tempConfigDir();
  const configured = await run(['configure', 'forms', '--url', forms.url, '--with-token'], {
    input: `${forms.token}\n`,
  });
  expect(configured.code, configured.stderr).toBe(0);
});
afterEach(async () => {
  await dir.cleanup();
});

interface FeedRow {
  id: string;
  read: boolean;
  preview: string;
}

describe('havn configure forms', () => {
  it('keeps the token in tokens.json (0600), never in config.json, argv or --show', async () => {
    const tokens = join(dir.dir, 'tokens.json');
    expect((await stat(tokens)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(tokens, 'utf8'))).toEqual({
      default: { forms: forms.token },
    });
    const config = await readFile(join(dir.dir, 'config.json'), 'utf8');
    expect(config).not.toContain(forms.token);
    expect(JSON.parse(config)).toEqual({ forms: { url: forms.url } });
    const shown = await run(['configure', 'forms', '--show']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`URL:          ${forms.url}`);
    expect(shown.stdout).toContain(`(…${forms.token.slice(-4)})`);
    expect(shown.stdout).not.toContain(forms.token);
    const listed = await run(['configure', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`│ \\* default .*│ ${forms.url} │`));
  });

  it('refuses a URL that would send the token in clear to another machine (exit 2, nothing saved)', async () => {
    const r = await run([
      'configure',
      'forms',
      '--profile',
      'x',
      '--url',
      'http://forms.example.com',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--url must use https');
    expect(await readFile(join(dir.dir, 'config.json'), 'utf8')).not.toContain('"x"');
  });
});

describe('havn forms list', () => {
  it('lists the forms of the token’s organisation with their counts', async () => {
    await forms.submit({ name: 'Ada', message: 'Hello' });
    const table = await run(['forms', 'list']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/│ contact\s+│ Contact\s+│\s+\d+ │/);
    const json = await run(['forms', 'list', '--format', 'json']);
    const [contact] = JSON.parse(json.stdout) as { id: string; definitionVersion: number }[];
    expect(contact).toMatchObject({ id: 'contact', definitionVersion: 1 });
  });

  it('takes --url and HAVN_FORMS_TOKEN instead of a profile', async () => {
    const bare = await tempConfigDir();
    try {
      const r = await havn(['forms', 'list', '--url', forms.url, '--format', 'jsonl'], {
        configDir: bare.dir,
        env: { HAVN_FORMS_TOKEN: forms.token },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('"id":"contact"');
      const none = await havn(['forms', 'list'], { configDir: bare.dir });
      expect(none.code).toBe(1);
      expect(none.stderr).toContain('The forms server is not configured.');
    } finally {
      await bare.cleanup();
    }
  });

  it('a wrong token exits 1 and says how to fix it; a stored token never goes to another --url', async () => {
    const wrong = await run(['forms', 'list'], { env: { HAVN_FORMS_TOKEN: 'havn_wrong' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('refused the token (401');
    expect(wrong.stderr).toContain('HAVN_FORMS_TOKEN');
    const elsewhere = await run(['forms', 'list', '--url', 'http://127.0.0.1:9']);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('a stored token is sent only to its own URL');
  });
});

describe('havn forms submissions', () => {
  it('shows the latest, --unread only the unread, with text made safe for the terminal', async () => {
    const read = await forms.submit({ name: 'Read one', message: 'seen' });
    await forms.api('POST', `/api/orgs/acme/forms/contact/submissions/${read}/read`);
    const unread = await forms.submit({ name: '\u001b]0;pwned\u0007Unread one', message: 'new' });
    const all = await run(['forms', 'submissions', 'contact', '--format', 'json']);
    expect(all.code, all.stderr).toBe(0);
    const ids = (JSON.parse(all.stdout) as FeedRow[]).map((r) => r.id);
    expect(ids.indexOf(unread)).toBeLessThan(ids.indexOf(read)); // newest first
    const onlyUnread = await run([
      'forms',
      'submissions',
      'contact',
      '--unread',
      '--format',
      'json',
    ]);
    const rows = JSON.parse(onlyUnread.stdout) as FeedRow[];
    expect(rows.map((r) => r.id)).toContain(unread);
    expect(rows.every((r) => !r.read)).toBe(true);
    const table = await run(['forms', 'submissions', 'contact']);
    expect(table.stdout).toContain('Unread one');
    expect(table.stdout).not.toContain('\u001b');
  });

  it('--follow prints each submission posted while it runs exactly once; Ctrl-C exits 0', async () => {
    const before = await forms.submit({ name: 'Before', message: 'old' });
    const follow = startHavn(
      ['forms', 'submissions', 'contact', '--follow', '--interval', '0.5s', '--format', 'jsonl'],
      { configDir: dir.dir },
    );
    await follow.waitFor((out) => out.includes(before));
    const posted: string[] = [];
    for (const name of ['One', 'Two', 'Three']) {
      posted.push(await forms.submit({ name, message: 'live' }));
    }
    await follow.waitFor((out) => posted.every((id) => out.includes(id)));
    // Two more polls find nothing new.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await follow.stop('SIGINT')).toBe(0);
    const lines = follow
      .stdout()
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as FeedRow).id);
    for (const id of [before, ...posted]) expect(lines.filter((l) => l === id)).toHaveLength(1);
    // Oldest first, as a tail reads.
    expect(lines.slice(-3)).toEqual(posted);
  });

  it('refuses --format json with --follow (exit 2) and names an unknown form', async () => {
    const json = await run(['forms', 'submissions', 'contact', '-f', '--format', 'json']);
    expect(json.code).toBe(2);
    expect(json.stderr).toContain('use --format Jsonl');
    const missing = await run(['forms', 'submissions', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Form acme/nope was not found');
  });
});

describe('havn forms export', () => {
  it('writes the same bytes as the API', async () => {
    await forms.submit({ name: '=HYPERLINK("x")', message: 'a, "quoted"\nline' });
    const file = join(dir.dir, 'contact.csv');
    const r = await run(['forms', 'export', 'contact', '--format', 'csv', '-o', file]);
    expect(r.code, r.stderr).toBe(0);
    const res = await fetch(
      `${forms.url}/api/orgs/acme/forms/contact/submissions/export?format=csv`,
      {
        headers: { authorization: `Bearer ${forms.token}` },
      },
    );
    const api = Buffer.from(await res.arrayBuffer());
    expect(await readFile(file)).toEqual(api);
    const piped = await run(['forms', 'export', 'contact', '--format', 'json']);
    expect(piped.code).toBe(0);
    expect(JSON.parse(piped.stdout)).toEqual(
      await (
        await fetch(`${forms.url}/api/orgs/acme/forms/contact/submissions/export?format=json`, {
          headers: { authorization: `Bearer ${forms.token}` },
        })
      ).json(),
    );
  });
});

describe('havn forms definition', () => {
  it('put refuses an invalid file locally, naming the path of the error; nothing is sent', async () => {
    const file = join(dir.dir, 'bad.json');
    const bad = structuredClone(CONTACT_DEFINITION) as { questions: { type: string }[] };
    bad.questions[1]!.type = 'paragraph';
    await writeFile(file, JSON.stringify(bad));
    const { form: before } = await forms.api<{ form: { definitionVersion: number } }>(
      'GET',
      '/api/orgs/acme/forms/contact',
    );
    const r = await run(['forms', 'definition', 'put', 'contact', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}: questions/1/type: must be one of text, email`);
    expect(r.stderr).toContain('Nothing was sent');
    const { form: after } = await forms.api<{ form: { definitionVersion: number } }>(
      'GET',
      '/api/orgs/acme/forms/contact',
    );
    expect(after.definitionVersion).toBe(before.definitionVersion);
    const missing = structuredClone(CONTACT_DEFINITION) as { questions: object[] };
    missing.questions[0] = { logicalName: 'name', type: 'text' };
    const noLabel = await run(['forms', 'definition', 'put', 'contact'], {
      input: JSON.stringify(missing),
    });
    expect(noLabel.code).toBe(1);
    expect(noLabel.stderr).toContain('standard input: questions/0/label: is required');
  });

  it('put saves a valid definition as the next version; get writes it back', async () => {
    const next = structuredClone(CONTACT_DEFINITION) as { intro: { title: string } };
    next.intro.title = `Contact us ${String(Date.now())}`;
    const file = join(dir.dir, 'next.json');
    await writeFile(file, JSON.stringify(next));
    const put = await run(['forms', 'definition', 'put', 'contact', file]);
    expect(put.code, put.stderr).toBe(0);
    expect(put.stderr).toMatch(/Saved the definition of acme\/contact as version \d+\./);
    const got = await run(['forms', 'definition', 'get', 'contact']);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toEqual(next);
  });
});

describe('havn forms webhooks test', () => {
  let receiver: Server;
  let hook: string;
  let failing: string;
  const bodies: string[] = [];
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(req.url === '/fail' ? 500 : 200, { 'content-type': 'application/json' });
        res.end(req.url === '/fail' ? '{"error":"down"}' : '{"received":true}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    hook = `http://127.0.0.1:${String(port)}/hook`;
    failing = `http://127.0.0.1:${String(port)}/fail`;
    await forms.api('PATCH', '/api/orgs/acme/forms/contact', {
      webhooks: [{ url: hook }, { url: failing }],
    });
  });
  afterAll(async () => {
    await forms.api('PATCH', '/api/orgs/acme/forms/contact', { webhooks: [] });
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('sends a signed test to each webhook and exits 1 when one failed', async () => {
    const r = await run(['forms', 'webhooks', 'test', 'contact', '--format', 'json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('1 of 2 test deliveries failed.');
    const rows = JSON.parse(r.stdout) as { target: string; status: string; httpStatus: number }[];
    expect(rows).toEqual([
      expect.objectContaining({ target: hook, status: 'delivered', httpStatus: 200 }),
      expect.objectContaining({ target: failing, status: 'failed', httpStatus: 500 }),
    ]);
    expect(bodies.some((b) => b.includes('"type":"submission.test"'))).toBe(true);
    const one = await run(['forms', 'webhooks', 'test', 'contact', '--webhook', hook]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain('delivered');
  });
});
