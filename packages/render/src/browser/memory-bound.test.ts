import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../test-support/service.js';
import { BrowserMemory } from './memory-cgroup.js';

// docs/render.md#memory-bounds for renders: the warm browser over BROWSER_MAX_MEMORY is stopped,
// the render it ran answers 502, the next render gets a new browser, /metrics counts it and
// /healthz says what bound browsers get; and where no cgroup can be had, the service says why.

const GREEDY = `<script>
  const keep = [];
  for (;;) keep.push(new Uint8Array(64 * 1024 * 1024).fill(7));
</script>`;

describe('the warm browser over its memory bound', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService({ BROWSER_MAX_MEMORY: '512MiB' });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('fails its render with 502, is replaced, and is counted', async () => {
    const health = (await (await svc.call('/healthz')).json()) as { memoryBound: unknown };
    expect(health.memoryBound).toEqual({
      enforced: true,
      cgroup: expect.stringMatching(/^v[12]$/) as string,
      bytes: 512 * 1024 * 1024,
    });
    const greedy = await svc.post('/v1/render', { html: GREEDY });
    expect(greedy.status).toBe(502);
    const calm = await svc.post('/v1/render', { html: '<h1>fine</h1>' });
    expect(calm.status).toBe(200);
    const metrics = await (await svc.call('/metrics')).text();
    expect(metrics).toContain('havn_browser_memory_kills_total{browser="warm"} 1');
  });
});

describe('where no memory cgroup can be had', () => {
  it('says why, and bounds nothing', () => {
    expect(BrowserMemory.detect(undefined, { switchesUser: true }).status).toEqual({
      enforced: false,
      reason: 'BROWSER_MAX_MEMORY=off',
    });
    expect(BrowserMemory.detect(1 << 30, { switchesUser: false }).status).toEqual({
      enforced: false,
      reason: 'browsers run as the service user (not root, or BROWSER_UIDS=off)',
    });
    const none = BrowserMemory.detect(1 << 30, { switchesUser: true, root: '/nonexistent' });
    expect(none.status).toEqual({
      enforced: false,
      reason: 'the host has no memory controller this process can reach',
    });
    expect(none.create()).toBeUndefined();
  });
});
