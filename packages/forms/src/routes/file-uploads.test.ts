import { createHash } from 'node:crypto';
import { readdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLogger } from '@havn/shared';
import { S3ObjectStore } from '@havn/shared/object-store';
import { RetentionSweeper } from '../services/retention-sweeper.js';
import { sweepOrphanFiles } from '../services/uploads/orphan-files.js';
import { DirFileBytes, type FileBytes, keptFileName, S3FileBytes } from '../store/file-bytes.js';
import { storeUnderTest } from '../../../../test-support/test-database.js';
import type { UploadConfig } from '../config.js';
import { adminToken, client, startForms, type RunningForms } from '../test-support/forms-server.js';
import { startReceiver, waitFor, type Receiver } from '../test-support/receivers.js';
import { startS3StandIn, type S3StandIn } from '../../../../test-support/s3-stand-in.js';

// docs/forms.md#file-uploads, on the store under test: files on disk with SQLite, in S3 (the
// s3rver stand-in) with PostgreSQL, so both byte stores and both databases are covered.

const site = 'http://site.test';
const formPath = '/api/orgs/acme/forms/apply';
const MiB = 1024 * 1024;

const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
/** A PDF of `size` bytes (a header, padding and the trailer file-type and readers look for). */
function pdf(size: number): Buffer {
  const head = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n', 'latin1');
  const tail = Buffer.from('\ntrailer\n<<>>\n%%EOF\n');
  return Buffer.concat([head, Buffer.alloc(size - head.length - tail.length, 0x20), tail]);
}
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const definition = {
  intro: { title: 'Apply' },
  questions: [
    { logicalName: 'name', type: 'text', label: 'Name', required: true },
    {
      logicalName: 'cv',
      type: 'file',
      label: 'CV',
      accept: ['application/pdf', '.pdf'],
      maxBytes: 4 * MiB,
      required: true,
    },
    { logicalName: 'shots', type: 'file', label: 'Screenshots', accept: ['image/*'], maxFiles: 2 },
  ],
};

let s: RunningForms;
let s3: S3StandIn | undefined;
let objects: S3ObjectStore | undefined;
const admin = () => client(s.url);

beforeAll(async () => {
  let uploads: Partial<UploadConfig> = { maxTotalBytes: 6 * MiB };
  if (storeUnderTest() === 'postgres') {
    s3 = await startS3StandIn();
    // s3rver's fixed development key pair.
    const settings = {
      endpoint: s3.endpoint,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    };
    objects = new S3ObjectStore({ bucket: s3.bucket, prefix: 'files/' }, settings);
    uploads = { ...uploads, s3: { location: { bucket: s3.bucket, prefix: 'files/' }, settings } };
  }
  s = await startForms({ uploads });
  await admin()('POST', '/api/orgs', { slug: 'acme', name: 'Acme' });
  const put = await admin()('PUT', formPath, { allowedOrigins: [site], definition });
  expect(put.status, put.text).toBe(200);
});

afterAll(async () => {
  await s.close();
  objects?.close();
  await s3?.close();
});

/** The byte store the server uses, opened a second time for the sweeps under test. */
function fileBytes(): FileBytes {
  return objects
    ? new S3FileBytes(objects, join(s.dir, 'uploads', '.incoming'))
    : new DirFileBytes(join(s.dir, 'uploads'));
}
const silent = createLogger({ name: 'test', level: 'silent' });

/** Every stored file key, and whatever waits in the incoming folder. */
async function stored(): Promise<{ keys: string[]; incoming: string[] }> {
  const dir = join(s.dir, 'uploads');
  const incoming = await readdir(join(dir, '.incoming')).catch(() => []);
  const keys: string[] = [];
  if (objects) {
    for await (const o of objects.list()) keys.push(o.name);
  } else {
    for (const name of await readdir(dir)) {
      if (name !== '.incoming') keys.push(name.replace('.', '/'));
    }
  }
  return { keys: keys.sort(), incoming };
}

function post(body: FormData, headers: Record<string, string> = { accept: 'application/json' }) {
  return fetch(`${s.url}${formPath}/submissions`, {
    method: 'POST',
    headers: { origin: site, ...headers },
    body,
    redirect: 'manual',
  });
}

function form(fields: Record<string, string>, files: [string, Buffer, string][]): FormData {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, v);
  for (const [question, bytes, name] of files) data.append(question, new Blob([bytes]), name);
  return data;
}

describe('file uploads', () => {
  test('a 3 MB PDF and a PNG are stored before the 200, listed in the answers and downloadable', async () => {
    const cv = pdf(3 * MiB);
    const r = await post(
      form({ name: 'Ada' }, [
        ['cv', cv, 'cv.pdf'],
        ['shots', png, 'shot.png'],
      ]),
    );
    expect(r.status, await r.clone().text()).toBe(200);
    const { id } = (await r.json()) as { id: string };
    const record = await admin()<{ answers: Record<string, { id: string }[]> }>(
      'GET',
      `${formPath}/submissions/${id}`,
    );
    expect(record.body.answers).toEqual({
      name: 'Ada',
      cv: [
        {
          name: 'cv.pdf',
          size: cv.length,
          type: 'application/pdf',
          sha256: sha256(cv),
          id: expect.stringMatching(/^fil_/) as string,
          // The record's signed link, for the inbox (webhooks carry the same).
          url: expect.stringMatching(/\/files\/fil_\w+\?expires=\d+&signature=/) as string,
        },
      ],
      shots: [
        {
          name: 'shot.png',
          size: png.length,
          type: 'image/png',
          sha256: sha256(png),
          id: expect.stringMatching(/^fil_/) as string,
          // The record's signed link, for the inbox (webhooks carry the same).
          url: expect.stringMatching(/\/files\/fil_\w+\?expires=\d+&signature=/) as string,
        },
      ],
    });
    const cvId = record.body.answers.cv?.[0]?.id ?? '';
    const download = await fetch(`${s.url}${formPath}/submissions/${id}/files/${cvId}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(cv)).toBe(true);
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="cv.pdf"; filename*=UTF-8''cv.pdf`,
    );
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    // Never without the token.
    const anonymous = await fetch(`${s.url}${formPath}/submissions/${id}/files/${cvId}`);
    expect(anonymous.status).toBe(401);
    expect((await stored()).keys).toHaveLength(2);
    expect((await stored()).incoming).toEqual([]);
  });

  test('a disguised file, one over maxBytes, files over the total and stray file parts are refused, nothing kept', async () => {
    const before = await stored();
    const count = async () =>
      (await admin()<{ submissions: unknown[] }>('GET', `${formPath}/submissions`)).body.submissions
        .length;
    const submissions = await count();
    const cases: [FormData, number, RegExp][] = [
      // A .png that is really HTML.
      [
        form({ name: 'Eve' }, [
          ['cv', pdf(1000), 'cv.pdf'],
          ['shots', Buffer.from('<!doctype html><script>alert(1)</script>'), 'shot.png'],
        ]),
        400,
        /^shots: "shot\.png" is text\/html by its contents, which is not one of image\/\*$/,
      ],
      // A PDF under a .png name is refused for the name's lie, not taken as an image.
      [
        form({ name: 'Eve' }, [['cv', pdf(1000), 'cv.png']]),
        400,
        /^cv: "cv\.png" is application\/pdf by its contents, not what its name says$/,
      ],
      [
        form({ name: 'Eve' }, [['cv', pdf(4 * MiB + 1), 'big.pdf']]),
        413,
        /^cv: "big\.pdf" is larger than 4194304 bytes \(maxBytes\)$/,
      ],
      [
        form({ name: 'Eve' }, [
          ['cv', pdf(3 * MiB), 'cv.pdf'],
          ['shots', Buffer.concat([png, Buffer.alloc(2 * MiB)]), 'a.png'],
          ['shots', Buffer.concat([png, Buffer.alloc(2 * MiB)]), 'b.png'],
        ]),
        413,
        /UPLOAD_MAX_TOTAL_BYTES/,
      ],
      [
        form({ name: 'Eve' }, [
          ['cv', pdf(1000), 'cv.pdf'],
          ['name', png, 'x.png'],
        ]),
        415,
        /^name is a file, but not a file question of this form$/,
      ],
      [
        form({ name: 'Eve' }, [
          ['cv', pdf(1000), 'cv.pdf'],
          ['shots', png, 'a.png'],
          ['shots', png, 'b.png'],
          ['shots', png, 'c.png'],
        ]),
        400,
        /^shots takes at most 2 file\(s\)$/,
      ],
      // Required: a visible file question with no file.
      [form({ name: 'Eve' }, []), 400, /^cv is required$/],
      // A file question is answered by files only.
      [form({ name: 'Eve', cv: 'cv.pdf' }, []), 400, /^cv is a file question/],
    ];
    for (const [body, status, message] of cases) {
      const r = await post(body);
      const text = await r.text();
      expect(r.status, text).toBe(status);
      expect((JSON.parse(text) as { error: string }).error).toMatch(message);
    }
    expect(await count()).toBe(submissions);
    expect(await stored()).toEqual(before);
  });

  test('a JavaScript-free post is sent on with a 303; a hostile name is neutralised in headers', async () => {
    const hostile = '"><img src=x onerror=alert(1)>\u202egnp.pdf';
    const r = await post(form({ name: 'Grace' }, [['cv', pdf(2000), hostile]]), {});
    expect(r.status).toBe(303);
    const feed = await admin()<{ submissions: { id: string }[] }>('GET', `${formPath}/submissions`);
    const id = feed.body.submissions[0]?.id ?? '';
    const record = await admin()<{ answers: { cv: { id: string; name: string }[] } }>(
      'GET',
      `${formPath}/submissions/${id}`,
    );
    const file = record.body.answers.cv[0];
    // The right-to-left override is gone; the rest is text the inbox escapes (a browser sends
    // `"` in a file name as %22, as fetch's FormData did here).
    expect(file?.name).toBe('%22><img src=x onerror=alert(1)>gnp.pdf');
    const download = await fetch(`${s.url}${formPath}/submissions/${id}/files/${file?.id ?? ''}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="_22><img src=x onerror=alert(1)>gnp.pdf"; filename*=UTF-8''%2522%3E%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3Egnp.pdf`,
    );
  });

  test('a client that goes away mid-upload leaves nothing behind, and the server goes on', async () => {
    const before = await stored();
    const { port } = new URL(s.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const head =
      '--x\r\nContent-Disposition: form-data; name="cv"; filename="cv.pdf"\r\n\r\n%PDF-1.4\n';
    socket.write(
      `POST ${formPath}/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${site}\r\n` +
        `Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 5000000\r\n\r\n${head}`,
    );
    socket.write(Buffer.alloc(200_000, 0x20));
    // The part has begun arriving: its file is being received.
    await waitFor(async () => ((await stored()).incoming.length > 0 ? true : undefined));
    socket.destroy();
    await waitFor(async () => ((await stored()).incoming.length === 0 ? true : undefined));
    expect(await stored()).toEqual(before);
    const r = await post(form({ name: 'Kate' }, [['cv', pdf(1000), 'cv.pdf']]));
    expect(r.status).toBe(200);
  });

  test('erasing a submission and deleting the form remove the bytes', async () => {
    const r = await post(form({ name: 'Hedy' }, [['cv', pdf(5000), 'cv.pdf']]));
    const { id } = (await r.json()) as { id: string };
    const before = await stored();
    expect(before.keys.filter((k) => k.startsWith(`${id}/`))).toHaveLength(1);
    expect((await admin()('DELETE', `${formPath}/submissions/${id}`)).status).toBe(204);
    expect((await stored()).keys.filter((k) => k.startsWith(`${id}/`))).toEqual([]);
    expect((await stored()).keys).toHaveLength(before.keys.length - 1);
    expect((await admin()('DELETE', formPath)).status).toBe(204);
    expect(await stored()).toEqual({ keys: [], incoming: [] });
  });

  test('retention removes the bytes with the submissions; the orphan sweep removes files no submission names', async () => {
    await admin()('PUT', formPath, { allowedOrigins: [site], definition, retentionDays: 1 });
    const r = await post(form({ name: 'Ida' }, [['cv', pdf(3000), 'cv.pdf']]));
    const { id } = (await r.json()) as { id: string };
    const bytes = fileBytes();
    // A file kept by a process that died before its commit: no submission names it.
    const orphan = 'sub_01m8000000000000000000000z/fil_01m8000000000000000000000z';
    if (objects)
      await objects.put(orphan, Buffer.from('x'), { contentType: 'text/plain', bytes: 1 });
    else {
      await writeFile(join(s.dir, 'uploads', keptFileName(orphan)), 'x');
    }
    const kept = (await stored()).keys;
    expect(kept).toContain(orphan);
    expect(await sweepOrphanFiles(bytes, s.store.submissions, new Date(Date.now() + 60_000))).toBe(
      1,
    );
    expect((await stored()).keys).toEqual(kept.filter((k) => k !== orphan));
    const later = Date.now() + 2 * 86_400_000;
    const sweeper = new RetentionSweeper(
      s.store.submissions,
      bytes,
      silent,
      () => later,
      3_600_000,
    );
    sweeper.start();
    await sweeper.stop();
    expect((await admin()('GET', `${formPath}/submissions/${id}`)).status).toBe(404);
    expect(await stored()).toEqual({ keys: [], incoming: [] });
  });
});

describe('file links in webhooks, exports', () => {
  let w: RunningForms;
  let receiver: Receiver;
  let clock = Date.now();

  beforeAll(async () => {
    receiver = await startReceiver();
    w = await startForms({ deps: { now: () => clock } });
    const api = client(w.url);
    await api('POST', '/api/orgs', { slug: 'acme', name: 'Acme' });
    const put = await api('PUT', formPath, {
      allowedOrigins: [site],
      webhooks: [{ url: receiver.url, secret: 'whsec_c2VjcmV0' }],
      definition,
    });
    expect(put.status, put.text).toBe(200);
  });

  afterAll(async () => {
    await w.close();
    await receiver.close();
  });

  test('a webhook carries a signed link per file that works until it expires, and not with one byte changed', async () => {
    const cv = pdf(20_000);
    const data = form({ name: 'Joan' }, [['cv', cv, 'cv.pdf']]);
    const r = await fetch(`${w.url}${formPath}/submissions`, {
      method: 'POST',
      headers: { origin: site, accept: 'application/json' },
      body: data,
    });
    expect(r.status).toBe(200);
    const delivered = await waitFor(() => receiver.received[0]);
    const hook = JSON.parse(delivered.body.toString()) as {
      data: { answers: { cv: { name: string; size: number; url: string }[] } };
    };
    const file = hook.data.answers.cv[0];
    expect(file).toMatchObject({ name: 'cv.pdf', size: cv.length });
    const url = new URL(file?.url ?? '');
    expect(url.origin).toBe(new URL(w.url).origin);
    expect(url.searchParams.get('expires')).toBe(String(Math.floor(clock / 1000) + 86_400));
    const got = await fetch(url);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(cv)).toBe(true);
    expect(got.headers.get('content-disposition')).toMatch(/^attachment; /);
    // One byte changed: in the signature, in the expiry, in the path.
    const signature = url.searchParams.get('signature') ?? '';
    const changed = (s: string) => `${s.slice(0, -1)}${s.endsWith('A') ? 'B' : 'A'}`;
    const tampered = [
      new URL(url.href.replace(signature, changed(signature))),
      new URL(
        url.href.replace(/expires=(\d+)/, (_m, e: string) => `expires=${String(Number(e) + 1)}`),
      ),
      new URL(url.href.replace(/fil_(\w+)/, (m) => changed(m))),
    ];
    for (const t of tampered) expect((await fetch(t)).status, t.href).toBe(403);
    // Until the expiry it works; after it, not.
    clock += 86_400_000 - 1000;
    expect((await fetch(url)).status).toBe(200);
    clock += 2000;
    expect((await fetch(url)).status).toBe(403);
  });

  test('the CSV export lists files by name and size; the JSON export has their answers', async () => {
    const api = client(w.url);
    const csv = await api('GET', `${formPath}/submissions/export`);
    expect(csv.text).toContain('cv.pdf (19.5 KB)');
    const json = await api<{ answers: { cv: { name: string; size: number }[] } }[]>(
      'GET',
      `${formPath}/submissions/export?format=json`,
    );
    expect(json.body[0]?.answers.cv[0]).toMatchObject({ name: 'cv.pdf', size: 20_000 });
  });
});
