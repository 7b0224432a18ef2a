import { describe, expect, it } from 'vitest';
import { table } from '../../test-support/fake-app-insights.js';
import { havn } from '../../test-support/run-havn.js';
import { useSignedInFake } from '../../test-support/signed-in-fake.js';

const COLUMNS = [
  ['timestamp', 'datetime'],
  ['cloud_RoleName', 'string'],
  ['severityLevel', 'int'],
  ['message', 'string'],
  ['operation_Id', 'string'],
] as const;

const LONG = `Payment provider answered slowly; retrying with backoff ${'y'.repeat(60)}`;

const ctx = useSignedInFake();
const n = ctx.name;
const run = (...args: string[]) => havn(['otel', 'logs', ...args], { configDir: ctx.configDir });

describe('havn otel logs', () => {
  it('renders rows with a numeric severityLevel as a table', async () => {
    ctx.fake.reply({
      body: table(COLUMNS, [
        ['2026-11-21T10:00:03Z', 'worker', '3', LONG, 'op-1'],
        ['2026-11-21T10:00:02Z', 'worker', 2, 'disk almost full', 'op-2'],
        ['2026-11-21T10:00:01Z', 'worker', '1', 'started', null],
      ]),
    });
    const r = await run();
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/│ Error +│ Payment provider/);
    expect(r.stdout).toMatch(/│ Warning +│ disk almost full/);
    expect(r.stdout).toMatch(/│ Information │ started/);
    // Log messages are cut to 70 characters.
    expect(r.stdout).toContain(`${LONG.slice(0, 69)}…`);
    expect(r.stdout).not.toContain(LONG.slice(0, 70));
  });

  it('keeps severityLevel numeric in JSON', async () => {
    ctx.fake.reply({ body: table(COLUMNS, [['2026-11-21T10:00:03Z', 'w', '4', LONG, 'op-1']]) });
    const r = await run('--format', 'Json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        timestamp: '2026-11-21T10:00:03Z',
        cloud_RoleName: 'w',
        severityLevel: 4,
        message: LONG,
        operation_Id: 'op-1',
      },
    ]);
  });

  it.each([
    ['Trace', 0],
    ['verbose', 0],
    ['Info', 1],
    ['INFORMATION', 1],
    ['warning', 2],
    ['Error', 3],
    ['critical', 4],
  ])('--severity %s filters severityLevel >= %i', async (name, level) => {
    expect((await run('--severity', name)).code).toBe(0);
    expect(String(ctx.fake.last.body.query)).toContain(
      `| where ${n('severityLevel')} >= ${String(level)}`,
    );
  });

  it('applies APP, --trace-id, --since and --limit (limit applies to logs)', async () => {
    expect((await run('worker', '--trace-id', 'abc', '--since', '30m', '--limit', '7')).code).toBe(
      0,
    );
    expect(ctx.fake.last.body).toEqual({
      query: {
        app: [
          'traces',
          '| where timestamp > ago(30m)',
          "| where cloud_RoleName == 'worker'",
          "| where operation_Id == 'abc'",
          '| order by timestamp desc',
          '| take 7',
          '| project timestamp, cloud_RoleName, severityLevel, message, operation_Id',
        ],
        workspace: [
          'AppTraces',
          '| where TimeGenerated > ago(30m)',
          "| where AppRoleName == 'worker'",
          "| where OperationId == 'abc'",
          '| order by TimeGenerated desc',
          '| take 7',
          '| project timestamp = TimeGenerated, cloud_RoleName = AppRoleName, severityLevel = SeverityLevel, message = Message, operation_Id = OperationId',
        ],
      }[ctx.backend].join('\n'),
      timespan: 'PT30M',
    });
    expect((await run()).code).toBe(0);
    expect(String(ctx.fake.last.body.query)).toContain('| take 20');
  });

  it('prints the query with -v', async () => {
    const r = await run('--verbose', '--severity', 'error');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`| where ${n('severityLevel')} >= 3`);
  });

  it.each(['loud', 'constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'refuses --severity %s with exit 2 naming the accepted names',
    async (name) => {
      const r = await run('--severity', name);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `--severity must be one of Trace (or Verbose), Info (or Information), Warning, Error, Critical; got '${name}'.`,
      );
      expect(ctx.fake.requests).toHaveLength(0);
    },
  );
});
