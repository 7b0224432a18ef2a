import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { mountSmallDisk, type SmallDisk } from '../../../../test-support/small-disk.js';
import { startService, type TestService } from '../test-support/service.js';

// The artifact disk fills up under a running render service
// (docs/operations.md#the-artifact-disk-is-full): ARTIFACT_DIR on a small tmpfs of its own, filled
// to the last byte by a file beside it, then freed.

let disk: SmallDisk;
let svc: TestService;
let artifactDir: string;

beforeAll(async () => {
  disk = mountSmallDisk('havn-artifacts-full-', '4m');
  artifactDir = join(disk.dir, 'artifacts');
  svc = await startService({ ARTIFACT_DIR: artifactDir });
});

afterAll(async () => {
  await svc.close();
  disk.remove();
});

interface Health {
  ok: boolean;
  renders: { inFlight: number; queued: number };
  artifactStore: { state: string; since?: string; error?: string };
}

async function health(): Promise<{ status: number; body: Health }> {
  const res = await svc.call('/healthz', { auth: false });
  return { status: res.status, body: (await res.json()) as Health };
}

async function refusals(): Promise<number> {
  const text = await (await svc.call('/metrics')).text();
  const line = /^havn_artifact_store_refusals_total\{reason="full"\} (\d+)/m.exec(text);
  return Number(line?.[1] ?? 0);
}

async function listed(): Promise<string[]> {
  const res = await svc.call('/v1/artifacts');
  const body = (await res.json()) as { artifacts: { id: string }[] };
  return body.artifacts.map((a) => a.id).sort();
}

const page = { html: '<h1>a page worth keeping</h1>' };

test('a full artifact disk: 507 naming the store, nothing partial kept, /healthz says so, and renders resume once freed', async () => {
  const kept = await svc.post('/v1/render', page);
  expect(kept.status).toBe(200);
  const keptId = (kept.body.artifact as { id: string }).id;
  expect(await listed()).toEqual([keptId]);
  expect((await health()).body.artifactStore).toEqual({ state: 'ok' });

  const filler = join(disk.dir, 'filler');
  disk.fill(filler);

  // Full: every output that needs the store is refused with the store named, never a 500.
  const refused = await svc.post('/v1/render', page);
  expect(refused).toEqual({
    status: 507,
    code: 'RENDER_STORE_FULL',
    body: {
      error:
        'the artifact store is full, so the output was not stored; retry later, or use return base64',
    },
  });
  const batch = await svc.post('/v1/render/batch', { ...page, profiles: ['desktop', 'mobile'] });
  expect(batch.status).toBe(200);
  for (const slot of batch.body.results as { error?: string }[]) {
    expect(slot.error).toMatch(/^the artifact store is full/);
  }
  // What needs no store still works.
  const inline = await svc.post('/v1/render', { ...page, return: 'base64' });
  expect(inline.status).toBe(200);

  // Nothing partial is listed, served or left on the disk.
  expect(await listed()).toEqual([keptId]);
  expect(readdirSync(artifactDir).sort()).toEqual([`${keptId}.bin`, `${keptId}.json`]);
  expect((await svc.call(`/v1/artifacts/${keptId}`)).status).toBe(200);

  // The service keeps answering; the store's state is in /healthz and the refusals in /metrics.
  const full = await health();
  expect(full.status).toBe(200);
  expect(full.body.ok).toBe(true);
  expect(full.body.artifactStore.state).toBe('full');
  expect(full.body.artifactStore.error).toMatch(/^ENOSPC/);
  expect(Date.parse(full.body.artifactStore.since ?? '')).not.toBeNaN();
  expect(await refusals()).toBe(3);
  expect(svc.logs.some((l) => l.includes('the artifact store refused a write'))).toBe(true);

  // Freed: the next render is stored, without a restart.
  rmSync(filler);
  const after = await svc.post('/v1/render', page);
  expect(after.status).toBe(200);
  const afterId = (after.body.artifact as { id: string }).id;
  expect(await listed()).toEqual([keptId, afterId].sort());
  expect((await svc.call(`/v1/artifacts/${afterId}`)).status).toBe(200);
  const recovered = await health();
  expect(recovered.body.artifactStore.state).toBe('ok');
  expect(recovered.body.renders).toEqual({ inFlight: 0, queued: 0 });
});
