import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
  const nowhere = { root: '/nonexistent' };

  it('says why, and bounds nothing', () => {
    expect(BrowserMemory.detect(undefined, { switchesUser: true, ...nowhere }).status).toEqual({
      enforced: false,
      reason: 'BROWSER_MAX_MEMORY=off',
    });
    expect(BrowserMemory.detect(1 << 30, { switchesUser: false, ...nowhere }).status).toEqual({
      enforced: false,
      reason: 'browsers run as the service user (not root, or BROWSER_UIDS=off)',
    });
    const none = BrowserMemory.detect(1 << 30, { switchesUser: true, ...nowhere });
    expect(none.status).toEqual({
      enforced: false,
      reason: 'the host has no memory controller this process can reach',
    });
    expect(none.create()).toBeUndefined();
  });

  // A container not run as root: its browsers share the container's own limit, which the status
  // names so that the start-up log can say they are bounded. The hierarchy is a folder laid out as
  // the kernel's along this process's own cgroup path (from /proc/self/cgroup, which detect reads):
  // "none" on the service's own cgroup, as the kernel writes it, and a limit on the one above.
  it("names the limit on the service's own cgroup, the tightest above it", async () => {
    const fake = await mkdtemp(join(tmpdir(), 'havn-cgroup-'));
    try {
      const lines = readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n');
      const v1 = lines
        .map((line) => /^\d+:([^:]*):(.*)$/.exec(line))
        .find((m) => m?.[1]?.split(',').includes('memory'))?.[2];
      const mount = v1 !== undefined ? join(fake, 'memory') : fake;
      const own = join(mount, v1 ?? lines.find((l) => l.startsWith('0::'))?.slice(3) ?? '/');
      const limitFile = v1 !== undefined ? 'memory.limit_in_bytes' : 'memory.max';
      const none = v1 !== undefined ? '9223372036854771712\n' : 'max\n';
      if (v1 === undefined) await writeFile(join(fake, 'cgroup.controllers'), 'cpu memory pids\n');
      await mkdir(own, { recursive: true });
      // Above the service's cgroup, or on it when it is the root of what the service sees.
      const above = own === mount ? own : dirname(own);
      if (above !== own) await writeFile(join(own, limitFile), none);
      await writeFile(join(above, limitFile), `${String(768 * 1024 * 1024)}\n`);
      expect(BrowserMemory.detect(1 << 30, { switchesUser: false, root: fake }).status).toEqual({
        enforced: false,
        reason: 'browsers run as the service user (not root, or BROWSER_UIDS=off)',
        sharedBytes: 768 * 1024 * 1024,
      });
      // "No limit" as the kernel writes it bounds nothing.
      await writeFile(join(above, limitFile), none);
      expect(
        BrowserMemory.detect(1 << 30, { switchesUser: false, root: fake }).status,
      ).not.toHaveProperty('sharedBytes');
    } finally {
      await rm(fake, { recursive: true, force: true });
    }
  });
});
