import { describe, expect, it } from 'vitest';
import { TraceRedactor } from './trace-redactor.js';

// The browser's command line taken out of an IO.read answer as it streams past, whatever reads
// it comes in: the answer keeps its length and stays valid JSON at both levels, nothing already
// sent is changed afterwards, and everything but the value is left as it was.

const COMMAND_LINE =
  '/usr/lib/chromium/chromium --proxy-server=http://127.0.0.1:41234 --user-data-dir="/tmp/a b" C:\\x é 🙂 \u0001';

function answer(): string {
  const trace = JSON.stringify({
    traceEvents: [{ name: 'command_line', args: { data: 'command_line' } }],
    metadata: {
      'clock-domain': 'LINUX_CLOCK_MONOTONIC',
      command_line: COMMAND_LINE,
      'os-name': 'Linux',
    },
  });
  return JSON.stringify({ id: 7, result: { base64Encoded: false, data: trace, eof: true } });
}

/** Feeds `text` cut at `cuts`, as the door would; checks that what went out never changes. */
function stream(text: string, cuts: number[]): string {
  const whole = Buffer.from(text);
  const redactor = new TraceRedactor();
  const sent: { at: number; bytes: Buffer }[] = [];
  let sentUpTo = 0;
  const edges = [0, ...cuts, whole.length];
  for (let i = 0; i + 1 < edges.length; i++) {
    const part = whole.subarray(edges[i], edges[i + 1]);
    const held = redactor.push(part);
    const upTo = (edges[i + 1] ?? 0) - held;
    if (upTo > sentUpTo) {
      sent.push({ at: sentUpTo, bytes: Buffer.from(whole.subarray(sentUpTo, upTo)) });
      sentUpTo = upTo;
    }
  }
  for (const { at, bytes } of sent) {
    expect(
      whole.subarray(at, at + bytes.length).equals(bytes),
      `changed after sending at ${at}`,
    ).toBe(true);
  }
  expect(whole.length).toBe(Buffer.byteLength(text));
  return whole.toString();
}

function check(out: string): void {
  const parsed = JSON.parse(out) as { id: number; result: { data: string; eof: boolean } };
  expect(parsed.id).toBe(7);
  const trace = JSON.parse(parsed.result.data) as {
    traceEvents: unknown[];
    metadata: Record<string, string>;
  };
  expect(trace.metadata['command_line']).toMatch(/^x+$/);
  expect(trace.metadata['os-name']).toBe('Linux');
  expect(trace.traceEvents).toEqual([{ name: 'command_line', args: { data: 'command_line' } }]);
  expect(out).not.toContain('proxy-server');
}

describe('the trace redactor', () => {
  it('takes the command line out of an answer read whole', () => {
    check(stream(answer(), []));
  });

  it('takes it out whatever two or three reads the answer comes in', () => {
    const text = answer();
    const length = Buffer.byteLength(text);
    for (let cut = 1; cut < length; cut++) check(stream(text, [cut]));
    for (let a = 1; a < length; a += 7) {
      for (let b = a + 1; b < Math.min(length, a + 12); b++) check(stream(text, [a, b]));
    }
  });

  it('leaves an answer without a command line as it was', () => {
    const text = JSON.stringify({
      id: 1,
      result: { base64Encoded: false, data: '{"command_line_x":"a\\"b","x":"command_line"}' },
    });
    expect(stream(text, [20])).toBe(text);
  });
});
