import { describe, expect, it } from 'vitest';
import { table } from '../../test-support/fake-app-insights.js';
import { havn } from '../../test-support/run-havn.js';
import { useSignedInFake } from '../../test-support/signed-in-fake.js';

const COLUMNS = [
  ['timestamp', 'datetime'],
  ['cloud_RoleName', 'string'],
  ['name', 'string'],
  ['type', 'string'],
  ['target', 'string'],
  ['duration', 'real'],
  ['resultCode', 'string'],
  ['success', 'bool'],
  ['id', 'string'],
  ['operation_ParentId', 'string'],
  ['operation_Id', 'string'],
] as const;

const ctx = useSignedInFake();
const run = (...args: string[]) => havn(['otel', 'spans', ...args], { configDir: ctx.configDir });

describe('havn otel spans', () => {
  it('queries dependencies of one operation over a fixed 24 hours, oldest first, no take', async () => {
    expect((await run('--operation-id', "op'1")).code).toBe(0);
    expect(ctx.fake.last.body).toEqual({
      query: {
        app: [
          'dependencies',
          '| where timestamp > ago(24h)',
          "| where operation_Id == 'op\\'1'",
          '| order by timestamp asc',
          '| project timestamp, cloud_RoleName, name, type, target, duration, resultCode, success, id, operation_ParentId, operation_Id',
        ],
        workspace: [
          'AppDependencies',
          '| where TimeGenerated > ago(24h)',
          "| where OperationId == 'op\\'1'",
          '| order by TimeGenerated asc',
          '| project timestamp = TimeGenerated, cloud_RoleName = AppRoleName, name = Name, type = DependencyType, target = Target, duration = DurationMs, resultCode = ResultCode, success = Success, id = Id, operation_ParentId = ParentId, operation_Id = OperationId',
        ],
      }[ctx.backend].join('\n'),
      timespan: 'PT24H',
    });
  });

  it('shows a null target blank in the table and null in JSON', async () => {
    const rows = [
      [
        '2026-11-21T10:00:01Z',
        'api',
        'SELECT orders',
        'SQL',
        'db.internal',
        '4.2',
        '0',
        'True',
        's1',
        'p',
        'op1',
      ],
      [
        '2026-11-21T10:00:02Z',
        'api',
        'compute',
        'InProc',
        null,
        '1',
        '',
        'False',
        's2',
        'p',
        'op1',
      ],
    ];
    ctx.fake.reply({ body: table(COLUMNS, rows) }, { body: table(COLUMNS, rows) });
    const t = await run('--operation-id', 'op1');
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/│ compute +│ InProc │ {13}│/);
    expect(t.stdout).toMatch(/│ ✓ {2}│/);
    expect(t.stdout).toMatch(/│ ✗ {2}│/);
    expect(t.stdout.indexOf('SELECT orders')).toBeLessThan(t.stdout.indexOf('compute'));
    const j = await run('--operation-id', 'op1', '--format', 'json');
    const parsed = JSON.parse(j.stdout) as Record<string, unknown>[];
    expect(parsed[1]).toMatchObject({ target: null, Success: false, HasError: true, duration: 1 });
    expect(parsed[0]).toMatchObject({ target: 'db.internal', Success: true, HasError: false });
  });

  it.each([[[]], [['--operation-id', '   ']]])(
    'fails validation without an operation id (%j)',
    async (args) => {
      const r = await run(...args);
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe('--operation-id is required for spans');
      expect(ctx.fake.requests).toHaveLength(0);
    },
  );

  it.each([['--since', '1h'], ['--limit', '5'], ['-v'], ['positional']])(
    'takes no %s',
    async (...args) => {
      const r = await run('--operation-id', 'op1', ...args);
      expect(r.code).toBe(2);
      expect(ctx.fake.requests).toHaveLength(0);
    },
  );
});
