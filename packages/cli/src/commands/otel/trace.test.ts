// `havn otel trace` against the fake with a fixture trace of 60 spans over four levels, with a
// backend whose clock runs 400 ms behind, a failing call, and orphans (test-support/trace-fixture.ts).
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../output/text.js';
import { ANSI, havn, havnOnTerminal } from '../../test-support/run-havn.js';
import { useSignedInFake } from '../../test-support/signed-in-fake.js';
import { traceFixture } from '../../test-support/trace-fixture.js';

const fixture = traceFixture(60);
const ctx = useSignedInFake();
const run = (...args: string[]) =>
  havn(['otel', 'trace', fixture.operationId, ...args], { configDir: ctx.configDir });

interface JsonNode {
  id: string | null;
  itemType: string;
  timestamp: string;
  offsetMs: number;
  skewMs: number;
  error: boolean;
  orphan: boolean;
  criticalPath: boolean;
  children: JsonNode[];
}
interface JsonTrace {
  operationId: string;
  start: string;
  durationMs: number;
  items: number;
  errors: number;
  roots: JsonNode[];
}

function all(nodes: readonly JsonNode[]): JsonNode[] {
  return nodes.flatMap((n) => [n, ...all(n.children)]);
}
function depth(n: JsonNode): number {
  return 1 + Math.max(0, ...n.children.map(depth));
}
// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\u001b\[\d+m/g, '').replace(/\r/g, '');

describe('havn otel trace', () => {
  it('asks for every item of the operation, oldest first, over the last 24 hours', async () => {
    const r = await havn(['otel', 'trace', `x' or 1==1`], { configDir: ctx.configDir });
    expect(r.code).toBe(0);
    expect(ctx.fake.last.body.timespan).toBe('PT24H');
    const query = String(ctx.fake.last.body.query);
    expect(query.split('\n').slice(0, 3)).toEqual(
      {
        app: [
          'union requests, dependencies, exceptions, traces',
          '| where timestamp > ago(24h)',
          "| where operation_Id == 'x\\' or 1==1'",
        ],
        workspace: [
          'union AppRequests, AppDependencies, AppExceptions, AppTraces',
          '| where TimeGenerated > ago(24h)',
          "| where OperationId == 'x\\' or 1==1'",
        ],
      }[ctx.backend],
    );
    expect(query).toContain(`| order by ${ctx.name('timestamp')} asc`);
    expect(r.stderr).toBe("No telemetry for operation x' or 1==1 in the last 24 hours.\n");
  });

  it('Json: the tree by parent id, with skew, orphans, errors and the critical path', async () => {
    ctx.fake.fallback = { body: fixture.body };
    const r = await run('--format', 'Json');
    expect(r.code).toBe(0);
    const trace = JSON.parse(r.stdout) as JsonTrace;
    expect(trace).toMatchObject({
      operationId: fixture.operationId,
      // The skewed backend does not pull the start earlier: it was moved into its caller.
      start: '2026-11-21T10:00:00.000Z',
      durationMs: 2000,
      items: fixture.items,
      errors: 4,
    });
    const nodes = all(trace.roots);
    expect(nodes).toHaveLength(fixture.items);
    expect(nodes.filter((n) => n.id !== null)).toHaveLength(fixture.spans);
    const [root, ...tops] = trace.roots;
    expect(root?.id).toBe(fixture.rootId);
    expect(depth(root!)).toBe(4);
    // Orphans: their parents are not in the trace; they stay, at the top, marked.
    expect(tops.map((n) => [n.id, n.orphan])).toEqual([
      [fixture.orphanIds[0], true],
      [fixture.orphanIds[1], true],
      [null, true],
    ]);
    expect(root?.orphan).toBe(false);
    const skewed = nodes.find((n) => n.id === fixture.skewedId)!;
    expect(skewed.skewMs).toBeCloseTo(fixture.skewMs, 3);
    expect(skewed.children.every((c) => Math.abs(c.skewMs - fixture.skewMs) < 0.001)).toBe(true);
    expect(skewed.offsetMs).toBeGreaterThan(0);
    expect(nodes.filter((n) => n.criticalPath).map((n) => n.id)).toEqual(fixture.criticalPath);
    expect(nodes.filter((n) => n.error && n.id !== null).map((n) => n.id)).toEqual(
      fixture.failedIds,
    );
    // Data stays exact: the timestamp as the service sent it, seven fraction digits and all.
    expect(root?.timestamp).toBe('2026-11-21T10:00:00.0000000Z');
  });

  it('Table: a tree with waterfall bars within 100 columns on a pipe', async () => {
    ctx.fake.fallback = { body: fixture.body };
    const r = await run();
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(ANSI);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      `Operation ${fixture.operationId}: ${String(fixture.items)} items, 4 errors, 2.00 s from 2026-11-21T10:00:00.000Z`,
    );
    expect(lines[1]).toMatch(/^ +0 +2\.00 s$/);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(100);
    const row = (text: string) => lines.find((l) => l.includes(text)) ?? '';
    // The root's bar spans the whole width; a child sits inside it, indented under it.
    expect(row('GET /checkout @frontend')).toMatch(/^GET \/checkout @frontend +2\.00 s █{40,}$/);
    expect(row('GET /part/0 @api-0')).toMatch(/^│ └─GET \/part\/0 @api-0 +137 ms +░+$/);
    expect(row('SELECT part 2')).toMatch(/^│ {3}└─\[SQL\] SELECT part 2 +40 ms +░+$/);
    // Critical path solid, the rest light; errors and the skew-moved span marked.
    expect(row('GET /api/part/11')).toMatch(/█+$/);
    expect(row('GET /part/11 @')).toMatch(/█+$/);
    expect(row('GET /api/part/10')).toMatch(/ ░+$/);
    expect(row('GET /api/part/2')).toContain('├─✗ [HTTP] GET /api/part/2');
    expect(row('TimeoutException')).toMatch(/✗ System\.TimeoutException: .* ◆$/);
    expect(row('GET /part/1 @inventory')).toContain('GET /part/1 @inventory ~');
    expect(lines.filter((l) => l.startsWith('⊘ '))).toHaveLength(3);
    expect(lines.at(-1)).toContain('█ critical path');
  });

  it('fits the terminal’s width, and colours the critical path and errors there', async () => {
    ctx.fake.fallback = { body: fixture.body };
    for (const columns of [60, 132]) {
      const r = await havnOnTerminal(['otel', 'trace', fixture.operationId], {
        configDir: ctx.configDir,
        columns,
      });
      expect(r.code).toBe(0);
      const lines = plain(r.stdout).trimEnd().split('\n');
      expect(lines.length).toBeGreaterThan(60);
      for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(columns);
      expect(Math.max(...lines.map(displayWidth))).toBeGreaterThan(columns - 5);
      expect(r.stdout).toContain('\u001b[33m█');
      // eslint-disable-next-line no-control-regex
      expect(r.stdout).toMatch(/\u001b\[31m[│├└─ ]*✗/);
    }
  });

  it('jsonl and csv: the nodes in tree order with their depth', async () => {
    ctx.fake.fallback = { body: fixture.body };
    const jsonl = await run('--format', 'jsonl');
    const rows = jsonl.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { depth: number; id: string | null });
    expect(rows).toHaveLength(fixture.items);
    expect(rows.slice(0, 5).map((x) => x.depth)).toEqual([0, 1, 1, 2, 3]);
    const csv = await run('--format', 'csv');
    expect(csv.stdout.split('\r\n')[0]).toBe(
      'depth,offsetMs,skewMs,error,orphan,criticalPath,timestamp,itemType,id,operation_ParentId,name,type,target,duration,success,resultCode,message,severityLevel,cloud_RoleName,cloud_RoleInstance,itemId',
    );
  });

  it('needs the operation id (exit 2), and takes a window', async () => {
    const missing = await havn(['otel', 'trace'], { configDir: ctx.configDir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'operation-id'");
    expect((await run('--since', '7d')).code).toBe(0);
    expect(ctx.fake.last.body.timespan).toBe('P7D');
  });
});
