import { request } from 'node:http';
import { expect, test } from 'vitest';
import { submissionBuilder } from './services/submission-builder.js';
import { openStore } from './store/store.js';
import { seedForm, startForms } from './test-support/forms-server.js';
import { waitFor } from './test-support/receivers.js';

// docs/forms.md#graceful-shutdown: stop accepting, finish in-flight ingests, close the database.
test('close answers every in-flight ingest, then stops accepting and closes the database', async () => {
  const s = await startForms({ config: { ingestRateLimitPerMinute: 0 } });
  try {
    await seedForm(s.url);
    const body = JSON.stringify({ name: 'Ada', message: 'x'.repeat(1000) });
    // The server has read each request's head: closing may not refuse them any more.
    let arrived = 0;
    s.app.server.on('request', () => {
      arrived++;
    });
    // Requests whose bodies are only half sent when the server starts closing.
    const started = Array.from({ length: 8 }, () => {
      const req = request(`${s.url}/api/orgs/acme/forms/contact/submissions`, {
        method: 'POST',
        headers: {
          origin: 'http://site.test',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      });
      const answered = new Promise<{ status: number; id: string }>((resolve, reject) => {
        req.on('response', (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, id: (JSON.parse(text) as { id: string }).id });
          });
        });
        req.on('error', reject);
      });
      req.write(body.slice(0, 100));
      return { req, answered };
    });
    await waitFor(() => (arrived === 8 ? true : undefined));
    const closing = s.stop();
    await new Promise((r) => setTimeout(r, 50));
    for (const { req } of started) req.end(body.slice(100));
    const answers = await Promise.all(started.map((x) => x.answered));
    await closing;
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    await expect(fetch(`${s.url}/api/health`)).rejects.toThrow(); // no longer accepting
    const store = await openStore(s.location, submissionBuilder);
    try {
      for (const { id } of answers) {
        expect(await store.submissions.get('acme', 'contact', id)).toBeDefined();
      }
    } finally {
      await store.close();
    }
  } finally {
    await s.close();
  }
});
