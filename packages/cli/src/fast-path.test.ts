// The fast path (no commander) and commander must agree: the same invocation gives the same
// query, output and exit code either way. A trailing `--` sends an invocation to commander.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CliContext } from './context.js';
import { tryFastPath } from './fast-path.js';
import { helpTexts } from './help-texts.js';
import { buildProgram } from './program.js';
import { table } from './test-support/fake-app-insights.js';
import { HAVN_BIN, havn } from './test-support/run-havn.js';
import { useSignedInFake } from './test-support/signed-in-fake.js';

const ctx = useSignedInFake();

beforeEach(() => {
  ctx.fake.fallback = {
    body: table(
      [
        ['timestamp', 'datetime'],
        ['message', 'string'],
        ['severityLevel', 'int'],
        ['success', 'bool'],
      ],
      [['2026-11-21T10:00:00Z', 'hello', '2', 'False']],
    ),
  };
});

describe('fast path and commander agree', () => {
  it.each([
    [['errors', 'api', '--since=6h', '--limit', '3', '-v', '--operation-id', 'op']],
    [
      [
        'errors',
        '--from',
        '2026-11-21T10:00:00Z',
        '--to=2026-11-21T11:00Z',
        '-v',
        '--format',
        'tsv',
      ],
    ],
    [['traces', '--profile', 'default', '--app-id', '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0']],
    [['traces', '--has-error', '--format', 'jsonl']],
    [['logs', 'worker', '--severity', 'Warning', '--trace-id', 't', '--verbose']],
    [['spans', '--operation-id', 'op-1', '--format=csv']],
    [['logs', '--severity', 'nope']],
    [['query', 'traces | take n', '--param', 'n=1', '--param=m=2', '--format', 'csv']],
    [['query']],
    [['spans']],
  ])('otel %j', async (args) => {
    const fast = await havn(['otel', ...args], { configDir: ctx.configDir });
    const fastBodies = ctx.fake.requests.map((r) => r.body);
    ctx.fake.requests.length = 0;
    const slow = await havn(['otel', ...args, '--'], { configDir: ctx.configDir });
    expect(ctx.fake.requests.map((r) => r.body)).toEqual(fastBodies);
    // -v prints the window's start and end, which move between the two runs.
    const steady = (r: typeof fast) => ({
      ...r,
      stderr: r.stderr.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T'),
    });
    expect(steady(slow)).toEqual(steady(fast));
  });
});

describe('tryFastPath', () => {
  const ctx = {} as CliContext; // never used: every case below must decline before running
  it.each([
    [['configure', 'telemetry']],
    [['otel']],
    [['otel', 'nope']],
    [['otel', 'errors', '--help']],
    [['otel', 'errors', '-h']],
    [['otel', 'errors', '--', 'x']],
    [['otel', 'errors', 'a', 'b']],
    [['otel', 'errors', '--limit']],
    [['otel', 'errors', '--limit', '-1']],
    [['otel', 'errors', '-vx']],
    [['otel', 'errors', '--has-error']],
    [['otel', 'errors', '--verbose=yes']],
    [['otel', 'spans', 'positional']],
  ])('leaves %j to commander', async (argv) => {
    expect(await tryFastPath(argv, ctx)).toBe(false);
  });
});

describe('help without commander', () => {
  it('dist/help.json holds what commander prints for every command, and the binary prints it', async () => {
    const cached = JSON.parse(
      await readFile(join(dirname(HAVN_BIN), 'help.json'), 'utf8'),
    ) as Record<string, string>;
    const commander = helpTexts((capture) =>
      buildProgram({ stdout: { write: capture }, stderr: { write: capture } } as CliContext),
    );
    expect(cached).toEqual(commander);
    expect(Object.keys(cached)).toContain('forms definition put');
    const dir = { configDir: '/nonexistent-havn-config' };
    const shown = await havn(['render', 'shot', '--help'], dir);
    expect(shown).toEqual({ code: 0, stdout: cached['render shot'], stderr: '' });
    // Anything but a command path followed by --help is commander's, with the same text.
    const viaCommander = await havn(['render', 'shot', '--help', '--device', 'x'], dir);
    expect(viaCommander.stdout).toBe(cached['render shot']);
    expect((await havn(['render', 'nope', '--help'], dir)).stdout).toBe(cached.render);
  });
});
