import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { submissionBuilder } from './services/submission-builder.js';
import { openStore } from './store/store.js';
import { adminToken, seedForm } from './test-support/forms-server.js';
import { waitFor } from './test-support/receivers.js';
import { createTestDatabase, dropTestDatabase } from '../../../test-support/test-database.js';
import { freePort } from '../../../test-support/ports.js';

const mainJs = fileURLToPath(new URL('../dist/main.js', import.meta.url));

// docs/forms.md#durability-and-throughput: a SIGKILL during a burst of submissions loses no
// acknowledged submission. The built server runs as a child process so the kill is a real one,
// mid-commit.
test('SIGKILL during a burst loses no acknowledged submission', async () => {
  expect(existsSync(mainJs), 'build first: node scripts/build.mjs').toBe(true);
  const dir = mkdtempSync(join(tmpdir(), 'havn-forms-kill-'));
  const databaseUrl = await createTestDatabase();
  const child = spawn(process.execPath, [mainJs], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      USER_DATA_DIR: dir,
      ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
      FORM_ADMIN_TOKEN: adminToken,
      INGEST_RATE_LIMIT_PER_MINUTE: '0',
      WEB_DIR: join(dir, 'none'),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => {
        reject(new Error(`server exited early (${String(code)})`));
      });
    });
    await seedForm(url);
    const acknowledged: string[] = [];
    let killed = false;
    const worker = async (n: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const res = await fetch(`${url}/api/orgs/acme/forms/contact/submissions`, {
            method: 'POST',
            headers: { origin: 'http://site.test', 'content-type': 'application/json' },
            body: JSON.stringify({ name: `w${String(n)}-${String(i)}`, message: 'x'.repeat(500) }),
          });
          if (res.status === 200) acknowledged.push(((await res.json()) as { id: string }).id);
        } catch {
          return; // the server is gone: an unanswered request was never acknowledged
        }
      }
    };
    const load = Array.from({ length: 16 }, (_, n) => worker(n));
    while (acknowledged.length < 300 && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill('SIGKILL');
    killed = true;
    await Promise.all(load);
    await exited;

    const store = await openStore({ userDataDir: dir, databaseUrl }, submissionBuilder);
    try {
      const missing: string[] = [];
      for (const id of acknowledged) {
        if (!(await store.submissions.get('acme', 'contact', id))) missing.push(id);
      }
      expect(missing).toEqual([]);
      expect(acknowledged.length).toBeGreaterThanOrEqual(300);
    } finally {
      await store.close();
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await dropTestDatabase(databaseUrl);
  }
});

async function startWithBadEnv(
  env: Record<string, string>,
): Promise<{ code: unknown; err: string }> {
  const child = spawn(process.execPath, [mainJs], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise((r) => child.once('exit', r));
  return { code, err };
}

test('the server refuses a bad configuration naming the variable', async () => {
  const bad = await startWithBadEnv({ PORT: 'eighty', INGEST_RATE_LIMIT_PER_MINUTE: '-1' });
  expect(bad.code).toBe(2);
  expect(bad.err).toMatch(/PORT/);
  expect(bad.err).toMatch(/INGEST_RATE_LIMIT_PER_MINUTE/);
  const mysql = await startWithBadEnv({ DATABASE_URL: 'mysql://db.internal/forms' });
  expect(mysql.code).toBe(2);
  expect(mysql.err).toMatch(/DATABASE_URL must be postgres:/);
});

test('a PostgreSQL that cannot be reached is waited for: not ready on /api/health, password hidden', async () => {
  // A port nothing listens on: connecting is refused at once, every try.
  const port = await freePort();
  const child = spawn(process.execPath, [mainJs], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://havn:hunter2@127.0.0.1:9/forms',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise((r) => child.once('exit', r));
  try {
    await waitFor(() => (/trying again in/.test(out) ? true : undefined));
    expect(out).toMatch(
      /the database at postgres:\/\/havn:\*\*\*@127\.0\.0\.1:9\/forms is not reachable \(.*ECONNREFUSED/,
    );
    // Answering, so a liveness probe does not restart it; not ready, so no traffic is sent.
    const health = await fetch(`http://127.0.0.1:${String(port)}/api/health`);
    expect(health.status).toBe(503);
    const body = (await health.json()) as { ok: boolean; error: string };
    expect(body.ok).toBe(false);
    expect(body.error).toMatch(/^waiting for the database: .*ECONNREFUSED/);
    const ingest = await fetch(
      `http://127.0.0.1:${String(port)}/api/orgs/acme/forms/contact/submissions`,
      {
        method: 'POST',
        body: '{}',
      },
    );
    expect(ingest.status).toBe(503);
    expect(ingest.headers.get('retry-after')).toBe('5');
    // Still waiting a few tries later, not exited.
    await waitFor(() => ((out.match(/trying again in/g) ?? []).length >= 2 ? true : undefined));
    expect(child.exitCode).toBeNull();
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  expect(out).not.toContain('hunter2');
});
