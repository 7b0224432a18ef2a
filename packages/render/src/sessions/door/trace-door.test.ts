import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawClient } from '../test-support/cdp-client.js';
import {
  BROWSERS,
  startSessionTestApp,
  type SessionTestApp,
} from '../test-support/session-test-app.js';

// docs/sessions.md#traces: a trace read through the door never carries the browser's command
// line (Browser.getBrowserCommandLine is refused, and the trace's metadata would tell the same),
// and a trace the door could not read (gzip, protobuf) is refused.

describe.each(BROWSERS)('traces through the door, against %s', (chromiumPath) => {
  let t: SessionTestApp;
  beforeAll(async () => {
    t = await startSessionTestApp({ chromiumPath });
  });
  afterAll(async () => {
    await t.close();
  });

  it('gives Playwright a whole trace whose metadata has no command line', async () => {
    const { cdpUrl } = await t.openSession();
    const browser = await chromium.connectOverCDP(cdpUrl);
    try {
      const page = browser.contexts()[0]!.pages()[0]!;
      await browser.startTracing(page, { screenshots: false });
      await page.goto(`${t.fixture.url}/`);
      const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as {
        traceEvents: unknown[];
        metadata?: Record<string, unknown>;
      };
      expect(trace.traceEvents.length).toBeGreaterThan(10);
      const text = JSON.stringify(trace);
      expect(text).not.toContain('--proxy-server');
      expect(text).not.toContain('--user-data-dir');
      // Chromium writes it into every trace: its value is overwritten, the rest stays.
      expect(trace.metadata?.['command_line']).toMatch(/^x+$/);
      expect(Object.keys(trace.metadata ?? {}).length).toBeGreaterThan(1);
    } finally {
      await browser.close();
    }
  });

  it('sends trace events (transferMode ReportEvents) without the command line', async () => {
    const { cdpUrl } = await t.openSession();
    const client = await rawClient(cdpUrl);
    try {
      expect((await client.command('Tracing.start', { transferMode: 'ReportEvents' })).error).toBe(
        undefined,
      );
      await client.command('Tracing.end');
      await client.event((e) => e.method === 'Tracing.tracingComplete', 20_000);
      const collected = client.events.filter((e) => e.method === 'Tracing.dataCollected');
      expect(collected.length).toBeGreaterThan(0);
      expect(JSON.stringify(collected)).not.toContain('--proxy-server');
    } finally {
      client.close();
    }
  });

  it('refuses a trace compressed or in protobuf', async () => {
    const { cdpUrl } = await t.openSession();
    const client = await rawClient(cdpUrl);
    try {
      for (const [params, reason] of [
        [
          { transferMode: 'ReturnAsStream', streamCompression: 'gzip' },
          /streamCompression must be none/,
        ],
        [{ transferMode: 'ReturnAsStream', streamFormat: 'proto' }, /streamFormat must be json/],
        [{ perfettoConfig: 'AAAA' }, /perfettoConfig is not allowed/],
      ] as const) {
        const reply = await client.command('Tracing.start', params);
        expect(reply.error?.message, JSON.stringify(params)).toMatch(reason);
      }
    } finally {
      client.close();
    }
  });
});
