import { describe, expect, it } from 'vitest';
import { table } from '../../test-support/fake-app-insights.js';
import { ANSI, havn, havnOnTerminal } from '../../test-support/run-havn.js';
import { useSignedInFake } from '../../test-support/signed-in-fake.js';

const COLUMNS = [
  ['timestamp', 'datetime'],
  ['cloud_RoleName', 'string'],
  ['name', 'string'],
  ['resultCode', 'string'],
  ['duration', 'real'],
  ['success', 'bool'],
  ['operation_Id', 'string'],
] as const;

// The service sends booleans and numbers as strings; real JSON values must work too.
const ROWS = [
  ['2026-11-21T10:00:03Z', 'api', 'GET /orders', '200', '12.5', 'True', 'op-a'],
  ['2026-11-21T10:00:02Z', 'api', 'POST /pay', '500', 1530.2, false, 'op-b'],
  ['2026-11-21T10:00:01Z', 'api', 'GET /health', '200', '3', null, 'op-c'],
];

const ctx = useSignedInFake();
const n = ctx.name;
const run = (...args: string[]) => havn(['otel', 'traces', ...args], { configDir: ctx.configDir });

describe('havn otel traces', () => {
  it('queries requests, newest first, with --has-error as success == false', async () => {
    expect((await run('api', '--has-error', '--since', '6h', '--limit', '50')).code).toBe(0);
    expect(ctx.fake.last.body).toEqual({
      query: {
        app: [
          'requests',
          '| where timestamp > ago(6h)',
          "| where cloud_RoleName == 'api'",
          '| where success == false',
          '| order by timestamp desc',
          '| take 50',
          '| project timestamp, cloud_RoleName, name, resultCode, duration, success, operation_Id',
        ],
        workspace: [
          'AppRequests',
          '| where TimeGenerated > ago(6h)',
          "| where AppRoleName == 'api'",
          '| where Success == false',
          '| order by TimeGenerated desc',
          '| take 50',
          '| project timestamp = TimeGenerated, cloud_RoleName = AppRoleName, name = Name, resultCode = ResultCode, duration = DurationMs, success = Success, operation_Id = OperationId',
        ],
      }[ctx.backend].join('\n'),
      timespan: 'PT6H',
    });
    expect((await run()).code).toBe(0);
    expect(String(ctx.fake.last.body.query)).not.toContain(`${n('success')} == false`);
  });

  it('shows a check or a cross for success, blank when unknown, and durations', async () => {
    ctx.fake.reply({ body: table(COLUMNS, ROWS) });
    const r = await run();
    expect(r.code).toBe(0);
    const [orders, pay, health] = ['GET /orders', 'POST /pay', 'GET /health'].map((n) =>
      r.stdout.split('\n').find((l) => l.includes(n)),
    );
    expect(orders).toMatch(/13 ms │ ✓ {2}│/);
    expect(pay).toMatch(/1\.53 s │ ✗ {2}│/);
    expect(health).toMatch(/3\.0 ms │ {4}│ op-c/);
    expect(r.stdout).not.toMatch(ANSI);
  });

  it('writes Success and HasError in PascalCase in JSON, coerced from strings', async () => {
    ctx.fake.reply({ body: table(COLUMNS, ROWS) });
    const r = await run('--format', 'json');
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows.map((x) => [x.Success, x.HasError, x.duration])).toEqual([
      [true, false, 12.5],
      [false, true, 1530.2],
      [null, null, 3],
    ]);
    expect(rows[0]).toEqual({
      timestamp: '2026-11-21T10:00:03Z',
      cloud_RoleName: 'api',
      name: 'GET /orders',
      resultCode: '200',
      duration: 12.5,
      Success: true,
      HasError: false,
      operation_Id: 'op-a',
    });
  });

  it('prints the query with -v (-v works on traces)', async () => {
    const r = await run('-v', '--has-error');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(ctx.facts.idLine);
    expect(r.stderr).toContain(`| where ${n('success')} == false`);
  });

  it('colours the check and cross only on request of a TTY, so never in a pipe', async () => {
    ctx.fake.reply({ body: table(COLUMNS, ROWS) });
    // stdout is a pipe here: no colour even without NO_COLOR.
    const r = await havn(['otel', 'traces'], {
      configDir: ctx.configDir,
      env: { FORCE_COLOR: '1' },
    });
    expect(r.stdout).toContain('✗');
    expect(r.stdout).not.toMatch(ANSI);
  });

  it('on a terminal: green check and red cross; NO_COLOR and Json stay plain', async () => {
    ctx.fake.reply(
      { body: table(COLUMNS, ROWS) },
      { body: table(COLUMNS, ROWS) },
      { body: table(COLUMNS, ROWS) },
    );
    const tty = await havnOnTerminal(['otel', 'traces'], { configDir: ctx.configDir });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain('\u001b[32m✓\u001b[39m');
    expect(tty.stdout).toContain('\u001b[31m✗\u001b[39m');
    const plain = await havnOnTerminal(['otel', 'traces'], {
      configDir: ctx.configDir,
      env: { NO_COLOR: '1' },
    });
    expect(plain.stdout).toContain('✗');
    expect(plain.stdout).not.toMatch(ANSI);
    const json = await havnOnTerminal(['otel', 'traces', '--format', 'Json'], {
      configDir: ctx.configDir,
    });
    expect(json.stdout).not.toMatch(ANSI);
    expect(JSON.parse(json.stdout)).toHaveLength(3);
  });
});
