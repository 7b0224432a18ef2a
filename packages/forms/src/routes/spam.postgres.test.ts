// Proof of work on two instances of one PostgreSQL database (docs/forms.md#proof-of-work): they
// sign with the same keys, kept in the database, and a solution used on one is used for the
// other. PostgreSQL only: the embedded SQLite store has one instance.
import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { client, seedForm, startForms, type RunningForms } from '../test-support/forms-server.js';
import { createTestDatabase, dropTestDatabase } from '../../../../test-support/test-database.js';

const site = 'http://site.test';
const contact = '/api/orgs/acme/forms/contact';

describe('proof of work across two instances', () => {
  let databaseUrl: string | undefined;
  let a: RunningForms;
  let b: RunningForms;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    const options = {
      databaseUrl,
      config: { ingestRateLimitPerMinute: 0 },
      deps: { proofOfWork: { maxNumber: 2_000 } },
    };
    // Each creates the keys on first use; whichever insert wins, both must sign with that one.
    [a, b] = await Promise.all([startForms(options), startForms(options)]);
    await seedForm(a.url);
    expect((await client(a.url)('PATCH', contact, { spamProtection: 'pow' })).status).toBe(200);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await dropTestDatabase(databaseUrl);
  });

  const solved = async (from: RunningForms) => {
    const r = await client(from.url, null)<Challenge>('GET', `${contact}/challenge`, undefined, {
      origin: site,
    });
    expect(r.status).toBe(200);
    const solution = await solveChallenge({ challenge: r.body, deriveKey });
    return Buffer.from(JSON.stringify({ challenge: r.body, solution })).toString('base64');
  };
  const submit = async (to: RunningForms, altcha: string) => {
    const r = await client(to.url, null)<{ id: string }>(
      'POST',
      `${contact}/submissions`,
      { name: 'Ada', submitFields: { altcha } },
      { origin: site },
    );
    expect(r.status).toBe(200);
    const stored = await client(to.url)<{ spam: boolean }>(
      'GET',
      `${contact}/submissions/${r.body.id}`,
    );
    return stored.body.spam;
  };

  test('a challenge of one instance is accepted by the other, once', async () => {
    const fromA = await solved(a);
    expect(await submit(b, fromA)).toBe(false);
    expect(await submit(a, fromA)).toBe(true); // replayed on the instance that issued it
    expect(await submit(b, fromA)).toBe(true);
    const fromB = await solved(b);
    expect(await submit(a, fromB)).toBe(false);
  });

  test('the same solution sent to both at once counts once', async () => {
    const altcha = await solved(a);
    const verdicts = await Promise.all([submit(a, altcha), submit(b, altcha)]);
    expect(verdicts.sort()).toEqual([false, true]);
  });
});
