// What reaches a terminal or a spreadsheet from telemetry text: every text cell of table, tsv and
// csv output is stripped of escape sequences and control characters, csv and tsv cells that
// would start a formula are neutralised, and Json carries the text exactly.
import { describe, expect, it } from 'vitest';
import { table } from '../../test-support/fake-app-insights.js';
import { ESCAPE_CORPUS } from '../../test-support/escape-corpus.js';
import { havn, startHavn } from '../../test-support/run-havn.js';
import { useSignedInFake } from '../../test-support/signed-in-fake.js';

const COLUMNS = [
  ['timestamp', 'datetime'],
  ['cloud_RoleName', 'string'],
  ['type', 'string'],
  ['message', 'string'],
  ['operation_Id', 'string'],
] as const;

// Control characters other than the line ends and separators a format itself writes.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

// What JSON.stringify alone would let through raw.
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029]/;

const FORMULAS = ['=cmd|" /C calc"!A0', '+SUM(1)', '-1+2', '@A1', '\tx', '\r=1'];

const ctx = useSignedInFake();

function serve(messages: readonly string[]): void {
  const rows = messages.map((m, i) => [
    '2026-11-21T10:00:00Z',
    `app\u001b]0;t\u0007${String(i)}`,
    'E',
    m,
    `op-${String(i)}`,
  ]);
  ctx.fake.fallback = { body: table(COLUMNS, rows) };
}

const run = (format: string) =>
  havn(['otel', 'errors', '--format', format], { configDir: ctx.configDir });

describe('escape sequences in telemetry text', () => {
  const raw = ESCAPE_CORPUS.map((c) => c.raw);

  it('table: no escape sequence or control character reaches the terminal', async () => {
    serve(raw);
    const r = await run('Table');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(UNSAFE);
    for (const c of ESCAPE_CORPUS) expect(r.stdout, c.name).toContain(`│ ${c.shown} `);
    // The app column's title-setting OSC went too, and every line is as wide as the others.
    expect(r.stdout).toContain('│ app0 ');
    const lines = r.stdout.trimEnd().split('\n');
    expect(new Set(lines.map((l) => Array.from(l).length)).size).toBe(1);
  });

  it('tsv: one line per row, the stripped text in its field', async () => {
    serve(raw);
    const r = await run('tsv');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(UNSAFE);
    const lines = r.stdout.split('\n').slice(0, -1);
    expect(lines).toHaveLength(ESCAPE_CORPUS.length);
    expect(lines.map((l) => l.split('\t')[3])).toEqual(ESCAPE_CORPUS.map((c) => c.shown));
  });

  it('csv: one record per row, the stripped text in its field', async () => {
    serve(raw);
    const r = await run('csv');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(UNSAFE);
    const records = r.stdout.split('\r\n').slice(1, -1);
    expect(records).toHaveLength(ESCAPE_CORPUS.length);
    expect(records.map((l) => l.split(',')[3])).toEqual(ESCAPE_CORPUS.map((c) => c.shown));
  });

  it('Json and Jsonl: the text exactly as stored', async () => {
    serve(raw);
    const json = await run('Json');
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout) as { message: string }[];
    expect(rows.map((x) => x.message)).toEqual(raw);
    const jsonl = await run('jsonl');
    const lines = jsonl.stdout.trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual(raw);
  });

  it('Json and Jsonl: DEL, C1 and U+2028/2029 written as \\u escapes, nothing raw', async () => {
    serve(raw);
    for (const format of ['Json', 'jsonl']) {
      const r = await run(format);
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(RAW_IN_JSON);
      for (const escape of ['\\u007f', '\\u0085', '\\u009b', '\\u009d', '\\u2028', '\\u2029']) {
        expect(r.stdout).toContain(escape);
      }
    }
  });
});

describe('formulas in csv and tsv', () => {
  it('cells starting with = + - @ tab or CR get a leading apostrophe', async () => {
    serve(FORMULAS);
    const csv = await run('csv');
    expect(
      csv.stdout
        .split('\r\n')
        .slice(1, -1)
        .map((l) => l.split(',')[3]),
    ).toEqual([`"'=cmd|"" /C calc""!A0"`, "'+SUM(1)", "'-1+2", "'@A1", "'\tx", "' =1"]);
    const tsv = await run('tsv');
    expect(
      tsv.stdout
        .split('\n')
        .slice(0, -1)
        .map((l) => l.split('\t')[3]),
    ).toEqual([`'=cmd|" /C calc"!A0`, "'+SUM(1)", "'-1+2", "'@A1", "' x", "' =1"]);
  });

  it('Json keeps them as they are', async () => {
    serve(FORMULAS);
    const r = await run('Json');
    expect((JSON.parse(r.stdout) as { message: string }[]).map((x) => x.message)).toEqual(FORMULAS);
  });
});

describe('escape sequences in the trace view and in --follow', () => {
  it('havn otel trace: names, messages and types are stripped in the waterfall', async () => {
    const columns = [
      ['timestamp', 'datetime'],
      ['itemType', 'string'],
      ['id', 'string'],
      ['operation_ParentId', 'string'],
      ['name', 'string'],
      ['type', 'string'],
      ['duration', 'real'],
      ['message', 'string'],
      ['cloud_RoleName', 'string'],
    ] as const;
    ctx.fake.fallback = {
      body: table(columns, [
        [
          '2026-11-21T10:00:00Z',
          'request',
          'r',
          'op',
          'GET /\u001b]0;x\u0007home',
          null,
          '10',
          null,
          'web\u001b[2K',
        ],
        ...ESCAPE_CORPUS.map((c, i) => [
          `2026-11-21T10:00:00.00${String(i % 10)}Z`,
          i % 2 === 0 ? 'dependency' : 'exception',
          i % 2 === 0 ? `d${String(i)}` : null,
          'r',
          c.raw,
          c.raw,
          '1',
          c.raw,
          'web',
        ]),
      ]),
    };
    const r = await havn(['otel', 'trace', 'op'], { configDir: ctx.configDir });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(UNSAFE);
    expect(r.stdout).toContain('GET /home @web');
  });

  it('--follow in table format: rows are stripped too', async () => {
    serve(raw());
    const follow = startHavn(['otel', 'errors', '-f', '--interval', '0.5s'], {
      configDir: ctx.configDir,
    });
    await follow.waitFor((out) => out.split('\n').length > ESCAPE_CORPUS.length);
    expect(await follow.stop()).toBe(0);
    expect(follow.stdout()).not.toMatch(UNSAFE);
    for (const c of ESCAPE_CORPUS) expect(follow.stdout(), c.name).toContain(`  ${c.shown}  op-`);
  });
});

function raw(): string[] {
  return ESCAPE_CORPUS.map((c) => c.raw);
}
