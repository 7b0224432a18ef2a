import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  client,
  sampleDefinition,
  startForms,
  type RunningForms,
} from '../test-support/forms-server.js';

const formPath = '/api/orgs/acme/forms/contact';

interface FormBody {
  id: string;
  name: string;
  description: string;
  allowedOrigins: string[];
  webhooks: { url: string; secret: string }[];
  definitionVersion: number | null;
}

describe('forms and definitions', () => {
  let s: RunningForms;
  let admin: ReturnType<typeof client>;
  beforeAll(async () => {
    s = await startForms();
    admin = client(s.url);
    await admin('POST', '/api/orgs', { slug: 'acme', name: 'Acme' });
  });
  afterAll(async () => {
    await s.close();
  });

  test('PUT creates, replaces metadata unconditionally and versions definitions', async () => {
    const created = await admin<FormBody>('PUT', formPath, {
      name: 'Contact',
      description: 'The contact form',
      allowedOrigins: ['https://acme.example'],
      webhooks: [{ url: 'https://hooks.example/a', secret: 'whsec_c2VjcmV0' }],
      definition: sampleDefinition,
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: 'contact',
      name: 'Contact',
      allowedOrigins: ['https://acme.example'],
      webhooks: [{ url: 'https://hooks.example/a', secret: 'whsec_c2VjcmV0' }],
      definitionVersion: 1,
    });

    // Same definition with its keys in another order: not re-versioned.
    const reordered = Object.fromEntries(Object.entries(sampleDefinition).reverse());
    const same = await admin<FormBody>('PUT', formPath, {
      name: 'Contact',
      allowedOrigins: ['https://acme.example'],
      definition: reordered,
    });
    expect(same.body.definitionVersion).toBe(1);
    // Rule 1: webhooks omitted means cleared; description omitted means empty.
    expect(same.body.webhooks).toEqual([]);
    expect(same.body.description).toBe('');

    // Rule 2: omitted, null or {} definition leaves the definition and version alone.
    for (const definition of [undefined, null, {}]) {
      const r = await admin<FormBody>('PUT', formPath, { name: 'Contact', definition });
      expect(r.body.definitionVersion).toBe(1);
    }
    const changed = { ...sampleDefinition, thanks: 'Thanks!' };
    const bumped = await admin<FormBody>('PUT', formPath, { name: 'C', definition: changed });
    expect(bumped.body.definitionVersion).toBe(2);

    const got = await admin('GET', formPath);
    expect(got.body).toEqual({
      form: bumped.body,
      definition: changed,
      embedUrl: `${s.url}${formPath}/definition`,
    });
    // Every version stays readable, so old answers keep their labels.
    expect((await admin('GET', `${formPath}/definitions/1`)).body).toEqual(sampleDefinition);
    expect((await admin('GET', `${formPath}/definitions/2`)).body).toEqual(changed);
    expect((await admin('GET', `${formPath}/definitions/3`)).status).toBe(404);
  });

  test('PUT .../definition stores a version; bad definitions name the first bad field', async () => {
    const r = await admin<{ version: number }>('PUT', `${formPath}/definition`, {
      ...sampleDefinition,
      thanks: 'v3',
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ version: 3 });
    const bad = structuredClone(sampleDefinition) as { questions: Record<string, unknown>[] };
    bad.questions[2] = { logicalName: 'x', type: 'slider', label: 'X' };
    const refused = await admin('PUT', `${formPath}/definition`, bad);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^questions\/2\/type: must be one of text, email/);
    const viaForm = await admin('PUT', formPath, { name: 'C', definition: bad });
    expect(viaForm.status).toBe(400);
    expect(viaForm.body.error).toMatch(/^definition\/questions\/2\/type/);
    const typo = await admin('PUT', `${formPath}/definition`, {
      ...sampleDefinition,
      intro: { title: 'T', txt: 'typo' },
    });
    expect(typo.body.error).toBe('intro/txt: is not a field of the definition format');
    const dup = structuredClone(sampleDefinition);
    dup.questions[1] = { ...dup.questions[1]!, logicalName: 'name' };
    expect((await admin('PUT', `${formPath}/definition`, dup)).body.error).toBe(
      'questions/1/logicalName: duplicate logicalName "name"',
    );
    // Nothing of that was stored.
    expect((await admin<FormBody>('GET', formPath)).body).toMatchObject({
      form: { definitionVersion: 3 },
    });
  });

  test('definitions are capped at 2 MiB (413); other form inputs are checked', async () => {
    const huge = {
      ...sampleDefinition,
      intro: { title: 'Big', text: 'x'.repeat(2 * 1024 * 1024) },
    };
    expect((await admin('PUT', `${formPath}/definition`, huge)).status).toBe(413);
    const origin = await admin('PUT', formPath, { allowedOrigins: ['https://a.example/path'] });
    expect(origin.status).toBe(400);
    expect(origin.body.error).toMatch(/^allowedOrigins\/0/);
    const hook = await admin('PUT', formPath, { webhooks: [{ url: 'ftp://x' }] });
    // Wildcards are refused by name and rule, through PUT and PATCH, and nothing is stored.
    for (const method of ['PUT', 'PATCH']) {
      for (const wildcard of ['https://*.example.com', '*', 'https://www.example.*']) {
        const r = await admin(method, formPath, {
          allowedOrigins: ['https://ok.example', wildcard],
        });
        expect(r.status).toBe(400);
        expect(r.body.error).toBe(
          `allowedOrigins/1: wildcards are not supported; list each origin exactly, like https://www.example.com (got ${wildcard})`,
        );
      }
    }
    expect((await admin<FormBody>('GET', formPath)).body).toMatchObject({
      form: { allowedOrigins: [] },
    });
    expect(hook.body.error).toMatch(/^webhooks\/0\/url/);
    const generated = await admin<FormBody>('PUT', formPath, {
      webhooks: [{ url: 'https://hooks.example/b' }],
    });
    expect(generated.body.webhooks[0]!.secret).toMatch(/^whsec_/);
    expect(
      (await admin('PUT', `/api/orgs/acme/forms/nope/definition`, sampleDefinition)).status,
    ).toBe(404);
    expect((await admin('PUT', formPath, 'not json')).status).toBe(400);
  });

  test('the list carries counts and timestamps; DELETE removes the form and its answers', async () => {
    await admin('PUT', formPath, { allowedOrigins: ['http://site.test'] });
    const post = await fetch(`${s.url}${formPath}/submissions`, {
      method: 'POST',
      headers: { origin: 'http://site.test', 'content-type': 'application/json' },
      body: '{"name":"A"}',
    });
    expect(post.status).toBe(200);
    const list = await admin<{ forms: Record<string, unknown>[] }>('GET', '/api/orgs/acme/forms');
    expect(list.body.forms).toHaveLength(1);
    expect(Object.keys(list.body.forms[0]!).sort()).toEqual(
      [
        'createdAt',
        'definitionVersion',
        'description',
        'id',
        'lastSubmissionAt',
        'name',
        'submissions',
        'unread',
        'updatedAt',
      ].sort(),
    );
    expect(list.body.forms[0]).toMatchObject({ submissions: 1, unread: 1, definitionVersion: 3 });
    expect((await admin('DELETE', formPath)).status).toBe(204);
    expect((await admin('GET', formPath)).status).toBe(404);
    expect((await admin('DELETE', formPath)).status).toBe(404);
    const feed = await admin<{ submissions: unknown[] }>('GET', '/api/orgs/acme/submissions');
    expect(feed.body.submissions).toEqual([]);
  });
});

describe('PATCH changes only the fields it names', () => {
  let s: RunningForms;
  let admin: ReturnType<typeof client>;
  const beta = '/api/orgs/acme/forms/beta';
  beforeAll(async () => {
    s = await startForms();
    admin = client(s.url);
    await admin('POST', '/api/orgs', { slug: 'acme', name: 'Acme' });
  });
  afterAll(async () => {
    await s.close();
  });

  test('a rename keeps origins, webhooks and the definition; the live form keeps answering', async () => {
    const created = await admin<FormBody>('PUT', beta, {
      name: 'Beta',
      description: 'Beta form',
      allowedOrigins: ['http://site.test'],
      webhooks: [{ url: 'https://hooks.example/a', secret: 'whsec_c2VjcmV0' }],
      definition: sampleDefinition,
    });
    expect(created.status).toBe(200);
    const renamed = await admin<FormBody>('PATCH', beta, { name: 'Beta renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      name: 'Beta renamed',
      description: 'Beta form',
      allowedOrigins: ['http://site.test'],
      webhooks: [{ url: 'https://hooks.example/a', secret: 'whsec_c2VjcmV0' }],
      definitionVersion: 1,
    });
    const post = await fetch(`${s.url}${beta}/submissions`, {
      method: 'POST',
      headers: { origin: 'http://site.test', 'content-type': 'application/json' },
      body: '{"name":"A"}',
    });
    expect(post.status).toBe(200);

    const origins = await admin<FormBody>('PATCH', beta, {
      allowedOrigins: ['https://www.example.com'],
      definition: { ...sampleDefinition, thanks: 'Merci' },
    });
    expect(origins.body).toMatchObject({
      name: 'Beta renamed',
      allowedOrigins: ['https://www.example.com'],
      webhooks: [{ url: 'https://hooks.example/a' }],
      definitionVersion: 2,
    });
    // A null definition changes nothing, as in a PUT.
    const nothing = await admin<FormBody>('PATCH', beta, { definition: null });
    expect(nothing.body.definitionVersion).toBe(2);
  });

  test('PATCH is checked like PUT and needs an existing form', async () => {
    const bad = await admin('PATCH', beta, { allowedOrigins: ['https://a.example/path'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^allowedOrigins\/0/);
    const hook = await admin('PATCH', beta, { webhooks: [{ url: 'ftp://x' }] });
    expect(hook.body.error).toMatch(/^webhooks\/0\/url/);
    const def = await admin('PATCH', beta, { definition: { questions: 'no' } });
    expect(def.status).toBe(400);
    expect(def.body.error).toMatch(/^definition\//);
    // Nothing of those was stored.
    expect((await admin('GET', beta)).body).toMatchObject({
      form: { allowedOrigins: ['https://www.example.com'], definitionVersion: 2 },
    });
    expect((await admin('PATCH', '/api/orgs/acme/forms/nope', { name: 'X' })).status).toBe(404);
    const anon = await client(s.url, null)('PATCH', beta, { name: 'X' });
    expect(anon.status).toBe(401);
  });
});
