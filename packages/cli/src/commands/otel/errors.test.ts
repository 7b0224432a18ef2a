import { describe, expect, it } from 'vitest';
import { FAKE_TOKEN, table } from '../../test-support/fake-app-insights.js';
import { ANSI, havn } from '../../test-support/run-havn.js';
import { useSignedInFake } from '../../test-support/signed-in-fake.js';

const COLUMNS = [
  ['timestamp', 'datetime'],
  ['cloud_RoleName', 'string'],
  ['type', 'string'],
  ['message', 'string'],
  ['operation_Id', 'string'],
] as const;

const LONG_MESSAGE = `Object reference not set to an instance of an object. ${'x'.repeat(80)} END`;
const LONG_OP = '4bf92f3577b34da6a3ce929d0e0e4736';

const ctx = useSignedInFake();
const n = ctx.name;
const run = (...args: string[]) => havn(['otel', 'errors', ...args], { configDir: ctx.configDir });

describe('havn otel errors', () => {
  it('posts the default query (exceptions, last hour, 20 rows, newest first) with the bearer token', async () => {
    const r = await run('--format', 'Json');
    expect(r.code).toBe(0);
    expect(ctx.fake.last.path).toBe(ctx.facts.queryPath());
    expect(ctx.fake.last.headers.authorization).toBe(`Bearer ${FAKE_TOKEN}`);
    expect(ctx.fake.last.headers['content-type']).toBe('application/json');
    expect(ctx.fake.last.body).toEqual({
      query: {
        app: [
          'exceptions',
          '| where timestamp > ago(1h)',
          '| order by timestamp desc',
          '| take 20',
          '| project timestamp, cloud_RoleName, type, message = coalesce(message, outerMessage, innermostMessage), operation_Id',
        ],
        workspace: [
          'AppExceptions',
          '| where TimeGenerated > ago(1h)',
          '| order by TimeGenerated desc',
          '| take 20',
          '| project timestamp = TimeGenerated, cloud_RoleName = AppRoleName, type = ExceptionType, message = coalesce(Message, OuterMessage, InnermostMessage), operation_Id = OperationId',
        ],
      }[ctx.backend].join('\n'),
      timespan: 'PT1H',
    });
    expect(r.stdout).toBe('[]\n');
  });

  it('filters on APP, --operation-id, --since and --limit', async () => {
    const r = await run('checkout', '--since', '7d', '--limit', '5', '--operation-id', LONG_OP);
    expect(r.code).toBe(0);
    const query = String(ctx.fake.last.body.query);
    expect(query).toContain(`| where ${n('timestamp')} > ago(7d)`);
    expect(query).toContain(`| where ${n('cloud_RoleName')} == 'checkout'`);
    expect(query).toContain(`| where ${n('operation_Id')} == '${LONG_OP}'`);
    expect(query).toContain('| take 5');
    expect(ctx.fake.last.body.timespan).toBe('P7D');
    expect((await run('--since', '30m', '--format', 'json')).code).toBe(0);
    expect(ctx.fake.last.body.timespan).toBe('PT30M');
  });

  it('escapes quotes and backslashes so a value cannot change the query shape', async () => {
    const evil = `x' or 1==1 | project secret='\\`;
    const r = await run(evil, '--operation-id', `a\\' | take 1000 //`);
    expect(r.code).toBe(0);
    const query = String(ctx.fake.last.body.query);
    expect(query).toContain(
      `| where ${n('cloud_RoleName')} == 'x\\' or 1==1 | project secret=\\'\\\\'`,
    );
    expect(query).toContain(`| where ${n('operation_Id')} == 'a\\\\\\' | take 1000 //'`);
    // Still exactly one pipeline stage per line, and the only take is ours.
    expect(query.split('\n')).toHaveLength(7);
    expect(query.match(/\| take /g)).toHaveLength(2);
    expect(query.split('\n').filter((l) => l.startsWith('| take'))).toEqual(['| take 20']);
  });

  it('renders a rounded table with messages cut to 60 and operation ids to 16 characters', async () => {
    ctx.fake.reply({
      body: table(COLUMNS, [
        [
          '2026-11-21T10:24:25.1234567Z',
          'checkout',
          'System.NullReferenceException',
          LONG_MESSAGE,
          LONG_OP,
        ],
        ['2026-11-21T10:20:00Z', 'api', 'TimeoutException', 'short', null],
      ]),
    });
    const r = await run();
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]?.startsWith('╭')).toBe(true);
    expect(lines[0]?.endsWith('╮')).toBe(true);
    expect(lines.at(-1)?.startsWith('╰')).toBe(true);
    expect(lines.at(-1)?.endsWith('╯')).toBe(true);
    expect(r.stdout).toContain(`${LONG_MESSAGE.slice(0, 59)}…`);
    expect(r.stdout).not.toContain(LONG_MESSAGE.slice(0, 60));
    expect(r.stdout).toContain(`${LONG_OP.slice(0, 15)}…`);
    expect(r.stdout).toContain('2026-11-21 10:24:25');
    expect(r.stdout).toMatch(/│ short +│/);
    // Every line of the table has the same width.
    expect(new Set(lines.map((l) => Array.from(l).length)).size).toBe(1);
    expect(r.stdout).not.toMatch(ANSI);
  });

  it('writes compact, untruncated JSON and nothing else with --format Json', async () => {
    ctx.fake.reply({
      body: table(COLUMNS, [['2026-11-21T10:24:25Z', 'checkout', 'E', LONG_MESSAGE, LONG_OP]]),
    });
    const r = await run('--format', 'JSON', '-v');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(ANSI);
    expect(r.stdout).toBe(`${JSON.stringify(JSON.parse(r.stdout))}\n`);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        timestamp: '2026-11-21T10:24:25Z',
        cloud_RoleName: 'checkout',
        type: 'E',
        message: LONG_MESSAGE,
        operation_Id: LONG_OP,
      },
    ]);
    // -v goes to stderr, never into the JSON.
    expect(r.stderr).toContain(ctx.facts.idLine);
    expect(r.stderr).toContain(`Backend: `);
    expect(r.stderr).toContain(`POST ${ctx.fake.url}${ctx.facts.queryPath()}`);
    expect(r.stderr).toContain('(last 1 hour, timespan PT1H)');
    expect(r.stderr).toContain(`${n('exceptions')}\n| where ${n('timestamp')} > ago(1h)`);
  });

  it('writes jsonl and csv', async () => {
    const rows = [
      ['2026-11-21T10:24:25Z', 'a', 'E', 'say "hi", then\nleave', 'op1'],
      ['2026-11-21T10:24:24Z', 'b', 'F', 'plain', null],
    ];
    ctx.fake.reply({ body: table(COLUMNS, rows) }, { body: table(COLUMNS, rows) });
    const jsonl = await run('--format', 'jsonl');
    expect(jsonl.code).toBe(0);
    const lines = jsonl.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1]!)).toMatchObject({ cloud_RoleName: 'b', operation_Id: null });
    const csv = await run('--format', 'CSV');
    expect(csv.code).toBe(0);
    expect(csv.stdout).toBe(
      'timestamp,cloud_RoleName,type,message,operation_Id\r\n' +
        '2026-11-21T10:24:25Z,a,E,"say ""hi"", then leave",op1\r\n' +
        '2026-11-21T10:24:24Z,b,F,plain,\r\n',
    );
  });

  it('says so on stderr when there is nothing, and keeps stdout empty', async () => {
    const r = await run('--since', '2h');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('No exceptions in the last 2 hours.');
  });

  it.each([
    [['--since', '1w'], '--since must be a positive whole number followed by d, h or m'],
    [['--since', 'abc'], '--since must be a positive whole number followed by d, h or m'],
    [['--since', '0h'], '--since must be'],
    [['--limit', 'ten'], '--limit must be a whole number from 1 to 500000'],
    [['--limit', '0'], '--limit must be'],
    [['--format', 'xml'], '--format must be Table, Json, Jsonl, Csv or Tsv'],
    [['--operation-id', '  '], '--operation-id must not be empty'],
    [['--nope'], "unknown option '--nope'"],
  ])('refuses %j with exit 2 and no request', async (args, message) => {
    const r = await run(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(ctx.fake.requests).toHaveLength(0);
  });
});

describe('time windows and cut results', () => {
  it('--from/--to: the range in the KQL and as the timespan interval; -v shows it', async () => {
    const r = await run('--from', '2026-11-21T10:00:00Z', '--to', '2026-11-21T11:30', '-v');
    expect(r.code).toBe(0);
    const range = '2026-11-21T10:00:00.000Z to 2026-11-21T11:30:00.000Z';
    expect(r.stderr).toContain(`Window: ${range} (window ${range}, timespan `);
    const t = n('timestamp');
    expect(String(ctx.fake.last.body.query)).toContain(
      `| where ${t} >= datetime(2026-11-21T10:00:00.000Z) and ${t} < datetime(2026-11-21T11:30:00.000Z)`,
    );
    expect(ctx.fake.last.body.timespan).toBe('2026-11-21T10:00:00.000Z/2026-11-21T11:30:00.000Z');
    expect(r.stderr).toContain(`No exceptions in the window ${range}.`);
  });

  it('-v shows the effective window of --since as times too', async () => {
    const before = Date.now();
    const r = await run('--since', '2h', '-v');
    const match = /^Window: (\S+) to (\S+) \(last 2 hours, timespan PT2H\)$/m.exec(r.stderr);
    expect(match).not.toBeNull();
    const [from, to] = [Date.parse(match?.[1] ?? ''), Date.parse(match?.[2] ?? '')];
    expect(to - from).toBe(2 * 3_600_000);
    expect(to).toBeGreaterThanOrEqual(before - 1000);
  });

  it.each([
    [['--since', '1h', '--from', '2h'], 'Give --since or --from, not both.'],
    [['--from', 'yesterday'], '--from must be an ISO 8601 time'],
    [['--from', '1h', '--to', '2h'], '--from must be before --to'],
  ])('refuses %j with exit 2 and no request', async (args, message) => {
    const r = await run(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(ctx.fake.requests).toHaveLength(0);
  });

  it('warns on stderr when the result reaches --limit, and not below it', async () => {
    const rows = [
      ['2026-11-21T10:00:02Z', 'a', 'E', 'one', 'op1'],
      ['2026-11-21T10:00:01Z', 'a', 'E', 'two', 'op2'],
    ];
    ctx.fake.fallback = { body: table(COLUMNS, rows) };
    const cut = await run('--limit', '2', '--format', 'Json');
    expect(cut.code).toBe(0);
    expect(JSON.parse(cut.stdout)).toHaveLength(2);
    expect(cut.stderr).toBe(
      'Warning: 2 rows, the --limit: older rows may have been left out. Raise --limit or narrow the window.\n',
    );
    const whole = await run('--limit', '3', '--format', 'Json');
    expect(whole.stderr).toBe('');
  });
});
