import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  client,
  sampleDefinition,
  seedForm,
  startForms,
  type RunningForms,
} from '../test-support/forms-server.js';

let s: RunningForms;
let now = Date.parse('2026-03-01T10:00:00Z');
beforeAll(async () => {
  s = await startForms({ deps: { now: () => now } });
  await seedForm(s.url);
});
afterAll(async () => {
  await s.close();
});

test('the definition versions are listed newest first with when each was saved', async () => {
  const api = client(s.url);
  now = Date.parse('2026-03-02T09:30:00Z');
  const put = await api('PUT', '/api/orgs/acme/forms/contact/definition', {
    ...sampleDefinition,
    thanks: 'Thanks!',
  });
  expect(put.body).toEqual({ version: 2 });
  const r = await api('GET', '/api/orgs/acme/forms/contact/definitions');
  expect(r.status).toBe(200);
  expect(r.body).toEqual({
    versions: [
      { version: 2, createdAt: '2026-03-02T09:30:00.000Z' },
      { version: 1, createdAt: '2026-03-01T10:00:00.000Z' },
    ],
  });
  expect((await api('GET', '/api/orgs/acme/forms/nope/definitions')).status).toBe(404);
});
