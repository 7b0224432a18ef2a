// The path every otel command shares: the check order (configuration, then the
// token), and the mapping of the query API's error answers to messages and exit codes.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE_TOKEN, table, upstreamError } from '../../test-support/fake-app-insights.js';
import {
  TEST_APP_ID,
  havn,
  jwtWithExpiry,
  signedInConfigDir,
  tempConfigDir,
} from '../../test-support/run-havn.js';
import { useSignedInFake } from '../../test-support/signed-in-fake.js';
import { TEST_WORKSPACE_ID } from '../../test-support/telemetry-backend.js';

const NOT_CONFIGURED =
  'Telemetry workspace is not configured.\nRun havn configure telemetry --workspace-id <workspace-id> to configure.\n' +
  '(For an Application Insights resource that still answers the app query API: --app-id <application-id> instead.)\n';
const NOT_AUTHENTICATED = "Not authenticated. Run 'havn login' to sign in.\n";
const STACK = /\n\s+at /;

const ctx = useSignedInFake();
const errors = (...args: string[]) =>
  havn(['otel', 'errors', ...args], { configDir: ctx.configDir });

describe('check order', () => {
  it.each([
    [['errors']],
    [['traces', '--since', 'bogus']],
    [['logs', '--severity', 'loud']],
    [['spans']],
    [['trace', 'op', '--from', 'bogus']],
    [['query', 'requests', '--param', 'no-equals', '--format', 'xml']],
    [['errors', '--follow', '--format', 'Json', '--interval', 'x']],
  ])('without configuration, %j says so first and exits 1', async (args) => {
    const empty = await tempConfigDir();
    try {
      const r = await havn(['otel', ...args], { configDir: empty.dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(NOT_CONFIGURED);
      expect(r.stdout).toBe('');
    } finally {
      await empty.cleanup();
    }
  });

  it('configured but never signed in: not authenticated, exit 1, no request', async () => {
    const dir = await tempConfigDir();
    try {
      await havn(['configure', 'telemetry', ...ctx.facts.configure, '--api-url', ctx.fake.url], {
        configDir: dir.dir,
      });
      const r = await havn(['otel', 'logs'], { configDir: dir.dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(NOT_AUTHENTICATED);
      expect(ctx.fake.requests).toHaveLength(0);
    } finally {
      await dir.cleanup();
    }
  });

  it('treats an expired stored token as no token', async () => {
    const dir = await signedInConfigDir(
      ctx.fake.url,
      jwtWithExpiry(Math.floor(Date.now() / 1000) + 3600),
      ctx.facts.configure,
    );
    try {
      // Age the stored credential: the file says when the token expires.
      const path = join(dir.dir, 'credentials.json');
      const stored = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
      await writeFile(path, JSON.stringify({ ...stored, expiresOn: Date.now() - 1000 }));
      const r = await havn(['otel', 'traces'], { configDir: dir.dir });
      expect(r.code).toBe(1);
      expect(r.stderr.startsWith(NOT_AUTHENTICATED)).toBe(true);
      expect(r.stderr).toMatch(/The stored token expired at \d{4}-/);
      expect(ctx.fake.requests).toHaveLength(0);
    } finally {
      await dir.cleanup();
    }
  });

  it('a token for another API URL (after configure --api-url) counts as none', async () => {
    const dir = await signedInConfigDir(ctx.fake.url, FAKE_TOKEN, ctx.facts.configure);
    try {
      await havn(['configure', 'telemetry', '--api-url', 'http://127.0.0.1:9'], {
        configDir: dir.dir,
      });
      const r = await havn(['otel', 'errors'], { configDir: dir.dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `${NOT_AUTHENTICATED}The stored sign-in is for ${ctx.fake.url}, not http://127.0.0.1:9.\n`,
      );
    } finally {
      await dir.cleanup();
    }
  });
});

describe('upstream answers', () => {
  it('prints a PartialError as a warning on stderr and still renders the rows', async () => {
    ctx.fake.reply({
      body: {
        ...table(
          [
            ['timestamp', 'datetime'],
            ['message', 'string'],
          ],
          [['2026-11-21T10:00:00Z', 'boom']],
        ),
        error: {
          code: 'PartialError',
          message: 'There were some errors when processing your query.',
          innererror: {
            code: 'EngineError',
            message: 'Query result set has exceeded the internal data size limit',
          },
        },
      },
    });
    const r = await errors('--format', 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(1);
    expect(r.stderr).toContain('Warning: the results may be incomplete');
    expect(r.stderr).toContain('exceeded the internal data size limit');
  });

  it.each([
    [
      401,
      'InvalidAuthenticationTokenExpired',
      'The access token has expired',
      ["Run 'havn login' to sign in again."],
    ],
    [
      403,
      'InvalidAuthenticationTokenAudience',
      'Wrong audience',
      ["Run 'havn login' to sign in again."],
    ],
    [
      403,
      'InsufficientAccessError',
      'The provided credentials have insufficient access',
      {
        app: [
          'Reader role (or Monitoring Reader) on the Application Insights resource',
          'up to an hour',
        ],
        workspace: [
          `Log Analytics Reader role (or Reader, or Monitoring Reader) on the Log Analytics workspace ${TEST_WORKSPACE_ID}`,
          'up to an hour',
        ],
      }[ctx.backend],
    ],
    [
      404,
      'PathNotFoundError',
      'The requested path does not exist',
      {
        app: [`Application Insights app '${TEST_APP_ID}' was not found`, 'Check the app id'],
        workspace: [
          `Log Analytics workspace '${TEST_WORKSPACE_ID}' was not found`,
          'Check the Workspace ID',
        ],
      }[ctx.backend],
    ],
    [500, 'InternalServerError', 'Something broke', ['Try again in a moment']],
  ])('maps %i %s to exit 1 with the cause and the fix', async (status, code, message, hints) => {
    ctx.fake.reply({ status, body: upstreamError(code, message) });
    const r = await errors();
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`(${String(status)} ${code}: ${message})`);
    for (const hint of hints) expect(r.stderr).toContain(hint);
    expect(r.stderr).not.toMatch(STACK);
  });

  it('a token the API refuses ends in exit 1 asking to sign in again', async () => {
    ctx.fake.acceptedToken = 'another-token';
    const r = await errors();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('401 InvalidAuthenticationToken');
    expect(r.stderr).toContain("Run 'havn login' to sign in again.");
  });

  it('400: the upstream message (innermost too), and the query with -v', async () => {
    const bad = upstreamError(
      'BadArgumentError',
      'The request had some invalid properties',
      "'where' operator: Failed to resolve column or scalar expression named 'nope'",
    );
    ctx.fake.reply({ status: 400, body: bad }, { status: 400, body: bad });
    const plain = await errors();
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain("Failed to resolve column or scalar expression named 'nope'");
    expect(plain.stderr).toContain('Run with -v to see the query.');
    const verbose = await errors('-v');
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toContain(
      `Query:\n${ctx.name('exceptions')}\n| where ${ctx.name('timestamp')} > ago(1h)`,
    );
  });

  it('429 with a short Retry-After: waits and retries once, automatically', async () => {
    ctx.fake.reply({
      status: 429,
      headers: { 'retry-after': '1' },
      body: upstreamError('ThrottledError', 'Too many requests'),
    });
    const started = Date.now();
    const r = await errors('--format', 'json');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('[]\n');
    expect(ctx.fake.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('429 with a long Retry-After: exit 1 saying when to retry', async () => {
    ctx.fake.reply({
      status: 429,
      headers: { 'retry-after': '120' },
      body: upstreamError('ThrottledError', 'Too many requests'),
    });
    const r = await errors();
    expect(r.code).toBe(1);
    expect(ctx.fake.requests).toHaveLength(1);
    expect(r.stderr).toContain('429 ThrottledError: Too many requests');
    expect(r.stderr).toContain('Retry after 120 seconds.');
  });

  it('an unreachable API: exit 1 naming the address, no stack trace', async () => {
    const dir = await tempConfigDir();
    try {
      await havn(
        ['configure', 'telemetry', ...ctx.facts.configure, '--api-url', 'http://127.0.0.1:9'],
        {
          configDir: dir.dir,
        },
      );
      await havn(['login', '--with-token'], { configDir: dir.dir, input: 'tok' });
      const r = await havn(['otel', 'errors'], { configDir: dir.dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('Could not reach http://127.0.0.1:9 (ECONNREFUSED)');
      expect(r.stderr).not.toMatch(STACK);
    } finally {
      await dir.cleanup();
    }
  });
});
