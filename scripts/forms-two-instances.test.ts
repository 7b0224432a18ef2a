import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, test } from 'vitest';

const script = fileURLToPath(new URL('./forms-two-instances.ts', import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const token = 'two-instances-test-token';

// docs/forms.md#several-instances: the script starts PostgreSQL, two instances and a round-robin
// proxy, and Ctrl-C stops them all.
test('scripts/forms-two-instances.ts serves one forms server from two instances and stops cleanly', async () => {
  const child = spawn(process.execPath, ['--import', tsx, script], {
    env: { ...process.env, FORMS_PORT: '0', FORM_ADMIN_TOKEN: token, DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /havn: forms on (http:\/\/[^ ]+) \(round robin over ports (\d+) and (\d+)\)/.exec(
          out,
        );
        if (m?.[1] && m[2] !== m[3]) resolve(m[1]);
      });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      void exited.then((code) => {
        reject(new Error(`the script exited (${String(code)}): ${err}`));
      });
    });
    const admin = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${url}/api/orgs`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ slug: 'pair', name: 'Pair' }),
    });
    expect(created.status).toBe(201);
    // Round robin: these go to both instances in turn, and every one sees the same data and key.
    const keys = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const orgs = (await (await fetch(`${url}/api/orgs`, { headers: admin })).json()) as {
        orgs: { slug: string }[];
      };
      expect(orgs.orgs.map((o) => o.slug)).toEqual(['pair']);
      const vapid = (await (await fetch(`${url}/api/push/vapid`)).json()) as { publicKey: string };
      keys.add(vapid.publicKey);
    }
    expect(keys.size).toBe(1);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
