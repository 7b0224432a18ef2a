import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { S3ObjectStore } from '@havn/shared/object-store';
import { storeUnderTest } from '../../../../test-support/test-database.js';
import type { UploadConfig } from '../config.js';
import { client, startForms, type RunningForms } from '../test-support/forms-server.js';
import { startS3StandIn, type S3StandIn } from '../test-support/s3-stand-in.js';

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
  let uploads: Partial<UploadConfig> = {};
  if (storeUnderTest() === 'postgres') {
    s3 = await startS3StandIn();
    // s3rver's fixed development key pair.
    const settings = {
      endpoint: s3.endpoint,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    };
    objects = new S3ObjectStore({ bucket: s3.bucket, prefix: 'files/' }, settings);
    uploads = { s3: { location: { bucket: s3.bucket, prefix: 'files/' }, settings } };
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

/** Every stored file key, and whatever waits in the incoming folder. */
async function stored(): Promise<{ keys: string[]; incoming: string[] }> {
  const dir = join(s.dir, 'uploads');
  const incoming = await readdir(join(dir, '.incoming')).catch(() => []);
  const keys: string[] = [];
  if (objects) {
    for await (const o of objects.list()) keys.push(o.name);
  } else {
    for (const folder of await readdir(dir)) {
      if (folder === '.incoming') continue;
      for (const name of await readdir(join(dir, folder))) keys.push(`${folder}/${name}`);
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
    const r = await post(form({ name: 'Ada' }, [['cv', cv, 'cv.pdf'], ['shots', png, 'shot.png']]));
    expect(r.status, await r.clone().text()).toBe(200);
    const { id } = (await r.json()) as { id: string };
    const record = await admin()<{ answers: Record<string, { id: string }[]> }>(
      'GET',
      `${formPath}/submissions/${id}`,
    );
    expect(record.body.answers).toEqual({
      name: 'Ada',
      cv: [{ name: 'cv.pdf', size: cv.length, type: 'application/pdf', sha256: sha256(cv), id: expect.stringMatching(/^fil_/) }],
      shots: [{ name: 'shot.png', size: png.length, type: 'image/png', sha256: sha256(png), id: expect.stringMatching(/^fil_/) }],
    });
    const cvId = record.body.answers.cv?.[0]?.id ?? '';
    const download = await fetch(`${s.url}${formPath}/submissions/${id}/files/${cvId}`, {
      headers: { authorization: `Bearer ${'test-admin-token-0123456789'}` },
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
});
