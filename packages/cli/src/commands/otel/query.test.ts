import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { table, upstreamError } from '../../test-support/fake-app-insights.js';
import { ANSI, havn } from '../../test-support/run-havn.js';
import { useSignedInFake } from '../../test-support/signed-in-fake.js';

const ctx = useSignedInFake();
const n = ctx.name;
const run = (args: string[], input?: string) =>
  havn(['otel', 'query', ...args], {
    configDir: ctx.configDir,
    ...(input === undefined ? {} : { input }),
  });

const RESULT = table(
  [
    ['timestamp', 'datetime'],
    ['resultCode', 'string'],
    ['count_', 'long'],
    ['avgMs', 'real'],
    ['ok', 'bool'],
    ['dims', 'dynamic'],
  ],
  [
    ['2026-11-21T10:00:00.5Z', '200', '1234', '12.5', 'True', '{"region":"eu"}'],
    ['2026-11-21T11:00:00Z', '500', '7', '1530.25', 'False', null],
  ],
);

describe('havn otel query', () => {
  it('sends the KQL as given, with the default hour as the timespan', async () => {
    const kql = `${n('requests')} | summarize count() by ${n('resultCode')}`;
    expect((await run([kql])).code).toBe(0);
    expect(ctx.fake.last.body).toEqual({ query: kql, timespan: 'PT1H' });
    expect((await run([kql, '--since', '7d'])).code).toBe(0);
    expect(ctx.fake.last.body.timespan).toBe('P7D');
    expect((await run([kql, '--from', '2026-11-20', '--to', '2026-11-21'])).code).toBe(0);
    expect(ctx.fake.last.body.timespan).toBe('2026-11-20T00:00:00.000Z/2026-11-21T00:00:00.000Z');
  });

  it('binds --param as let statements, escaped so a value cannot change the query', async () => {
    const evil = `x'; exceptions | take 1000 //\\`;
    const r = await run([
      `${n('exceptions')} | where ${n('cloud_RoleName')} == app and ${n('operation_Id')} == op`,
      '--param',
      'app=checkout',
      '--param',
      `op=${evil}`,
    ]);
    expect(r.code).toBe(0);
    expect(ctx.fake.last.body.query).toBe(
      [
        "let app = 'checkout';",
        "let op = 'x\\'; exceptions | take 1000 //\\\\';",
        `${n('exceptions')} | where ${n('cloud_RoleName')} == app and ${n('operation_Id')} == op`,
      ].join('\n'),
    );
  });

  it('reads the query from --file, or from standard input with --file -', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'havn-kql-'));
    try {
      const path = join(dir, 'slow.kql');
      const slow = `${n('requests')}\n| where ${n('duration')} > 1000\n| take 5`;
      await writeFile(path, `${slow}\n`);
      expect((await run(['--file', path])).code).toBe(0);
      expect(ctx.fake.last.body.query).toBe(slow);
      const one = `${n('traces')} | take 1`;
      expect((await run(['--file', '-', '--param', 'n=5'], `${one}\n`)).code).toBe(0);
      expect(ctx.fake.last.body.query).toBe(`let n = '5';\n${one}`);
      const missing = await run(['--file', join(dir, 'nope.kql')]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(`Cannot read --file ${join(dir, 'nope.kql')} (ENOENT).`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [[], 'Give a KQL query'],
    [['  '], 'The query is empty.'],
    [['requests', '--file', 'q.kql'], 'not both'],
    [['requests', '--param', 'novalue'], '--param must be name=value'],
    [['requests', '--param', '1x=2'], '--param must be name=value'],
    [['requests', '--param', 'a b=2'], '--param must be name=value'],
    [['requests', '--param', 'a=1', '--param', 'a=2'], '--param a is given twice.'],
    [['requests', '--param', 'a=line\nbreak'], '--param a must not contain control characters.'],
    [['requests', '--format', 'xml'], '--format must be'],
  ])('refuses %j with exit 2 and no request', async (args, message) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(ctx.fake.requests).toHaveLength(0);
  });

  it('prints any result as a table: times in UTC, numbers right-aligned', async () => {
    ctx.fake.reply({ body: RESULT });
    const r = await run([`${n('requests')} | summarize ...`]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[1]).toMatch(/│ timestamp +│ resultCode │ count_ │ +avgMs │ ok +│ dims +│/);
    expect(r.stdout).toMatch(
      /│ 2026-11-21 10:00:00 │ 200 +│ +1234 │ +12\.5 │ true +│ \{"region":"eu"\} │/,
    );
    expect(r.stdout).toMatch(/│ +7 │ 1530\.25 │ false │ +│/);
    expect(r.stdout).not.toMatch(ANSI);
  });

  it('writes every format: Json typed, jsonl, csv with a header, tsv without', async () => {
    ctx.fake.fallback = { body: RESULT };
    const json = await run(['q', '--format', 'Json']);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        timestamp: '2026-11-21T10:00:00.5Z',
        resultCode: '200',
        count_: 1234,
        avgMs: 12.5,
        ok: true,
        dims: { region: 'eu' },
      },
      {
        timestamp: '2026-11-21T11:00:00Z',
        resultCode: '500',
        count_: 7,
        avgMs: 1530.25,
        ok: false,
        dims: null,
      },
    ]);
    const jsonl = await run(['q', '--format', 'jsonl']);
    expect(jsonl.stdout.trimEnd().split('\n')).toHaveLength(2);
    const csv = await run(['q', '--format', 'csv']);
    expect(csv.stdout).toBe(
      'timestamp,resultCode,count_,avgMs,ok,dims\r\n' +
        '2026-11-21T10:00:00.5Z,200,1234,12.5,true,"{""region"":""eu""}"\r\n' +
        '2026-11-21T11:00:00Z,500,7,1530.25,false,\r\n',
    );
    const tsv = await run(['q', '--format', 'tsv']);
    expect(tsv.stdout).toBe(
      '2026-11-21T10:00:00.5Z\t200\t1234\t12.5\ttrue\t{"region":"eu"}\n' +
        '2026-11-21T11:00:00Z\t500\t7\t1530.25\tfalse\t\n',
    );
  });

  it('says so on stderr when there are no rows; -v shows the bound query', async () => {
    const r = await run([`${n('requests')} | take 0`, '--param', 'a=1', '-v']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Query:\nlet a = '1';\n${n('requests')} | take 0\n`);
    // -v says which backend runs the query.
    expect(r.stderr).toContain(ctx.facts.idLine);
    expect(r.stderr).toContain(
      ctx.backend === 'app'
        ? 'Backend: Application Insights app (classic tables)'
        : 'Backend: Log Analytics workspace (App* tables)',
    );
    expect(r.stderr).toContain('No rows in the last 1 hour.');
  });

  it('a query the service rejects: its message, exit 1', async () => {
    ctx.fake.reply({
      status: 400,
      body: upstreamError(
        'BadArgumentError',
        'The request had some invalid properties',
        "Failed to resolve table or column expression named 'requets'",
      ),
    });
    const r = await run(['requets | take 1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("named 'requets'");
  });
});

describe('a result the size of the service’s row cap', () => {
  it('is printed, with a warning on stderr that it may be cut', async () => {
    const rows = Array.from({ length: 500_000 }, (_, i) => [String(i)]);
    ctx.fake.reply({ body: table([['n', 'long']], rows) });
    const r = await run([`${n('requests')} | project n = 1`, '--format', 'tsv']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(500_001);
    expect(r.stderr).toBe(
      "Warning: 500000 rows, the query API's row limit: the result may be cut. Narrow the window or summarize.\n",
    );
  });
});
