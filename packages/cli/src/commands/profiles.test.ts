// Profiles: named configurations, chosen per command with --profile or HAVN_PROFILE, or bypassed
// with --app-id; `havn configure list` shows them.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_TOKEN } from '../test-support/fake-app-insights.js';
import { TEST_APP_ID, havn, signedInConfigDir } from '../test-support/run-havn.js';
import { useSignedInFake } from '../test-support/signed-in-fake.js';

const STAGING = '11111111-2222-4333-8444-555555555555';
const OTHER = '99999999-8888-4777-8666-555555555555';
const WORKSPACE = '7e5d4c3b-2a19-4807-96f5-e4d3c2b1a098';

const ctx = useSignedInFake();
let dir: { dir: string; cleanup: () => Promise<void> };
const run = (args: string[], env?: Record<string, string>) =>
  havn(args, { configDir: dir.dir, ...(env ? { env } : {}) });

beforeEach(async () => {
  dir = await signedInConfigDir(ctx.fake.url, FAKE_TOKEN);
  const staged = await run([
    'configure',
    'telemetry',
    '--profile',
    'staging',
    '--app-id',
    STAGING,
    '--api-url',
    ctx.fake.url,
  ]);
  expect(staged.code).toBe(0);
  expect(staged.stderr).toContain('Saved the telemetry configuration (profile staging)');
});
afterEach(async () => {
  await dir.cleanup();
});

describe('profiles', () => {
  it('stores a named profile beside the default one', async () => {
    const file = JSON.parse(await readFile(join(dir.dir, 'config.json'), 'utf8')) as {
      telemetry: { appId: string };
      profiles: { staging: { telemetry: { appId: string } } };
    };
    expect(file.telemetry.appId).toBe(TEST_APP_ID);
    expect(file.profiles.staging.telemetry.appId).toBe(STAGING);
  });

  it('--profile, else HAVN_PROFILE, else default chooses the app queried', async () => {
    expect((await run(['otel', 'errors'])).code).toBe(0);
    expect(ctx.fake.last.path).toBe(`/v1/apps/${TEST_APP_ID}/query`);
    expect((await run(['otel', 'errors', '--profile', 'staging'])).code).toBe(0);
    expect(ctx.fake.last.path).toBe(`/v1/apps/${STAGING}/query`);
    expect((await run(['otel', 'traces'], { HAVN_PROFILE: 'staging' })).code).toBe(0);
    expect(ctx.fake.last.path).toBe(`/v1/apps/${STAGING}/query`);
    const flagWins = await run(['otel', 'spans', '--operation-id', 'x', '--profile', 'default'], {
      HAVN_PROFILE: 'staging',
    });
    expect(flagWins.code).toBe(0);
    expect(ctx.fake.last.path).toBe(`/v1/apps/${TEST_APP_ID}/query`);
  });

  it('--app-id overrides the profile’s app for one command, and must be a GUID', async () => {
    expect((await run(['otel', 'logs', '--app-id', OTHER])).code).toBe(0);
    expect(ctx.fake.last.path).toBe(`/v1/apps/${OTHER}/query`);
    const bad = await run(['otel', 'logs', '--app-id', 'InstrumentationKey=x;IngestionEndpoint=y']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--app-id was given a connection string');
    expect(ctx.fake.requests).toHaveLength(1);
  });

  it('--workspace-id queries a workspace for one command, on the same cloud; not with --app-id', async () => {
    expect((await run(['otel', 'errors', '--workspace-id', WORKSPACE])).code).toBe(0);
    expect(ctx.fake.last.path).toBe(`/v1/workspaces/${WORKSPACE}/query`);
    expect(String(ctx.fake.last.body.query).split('\n')[0]).toBe('AppExceptions');
    const both = await run(['otel', 'errors', '--workspace-id', WORKSPACE, '--app-id', OTHER]);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('Give --workspace-id or --app-id, not both.\n');
    const bad = await run(['otel', 'errors', '--workspace-id', 'shop-logs']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--workspace-id must be a GUID such as');
    expect(bad.stderr).toContain('Log Analytics workspace > Overview > Workspace ID');
    expect(ctx.fake.requests).toHaveLength(1);
  });

  it('an unknown profile is not configured, with a configure command that names it', async () => {
    for (const r of [
      await run(['otel', 'errors', '--profile', 'prod']),
      await run(['otel', 'errors', '--since', 'nonsense'], { HAVN_PROFILE: 'prod' }),
      await run(['otel', 'errors', '--profile', 'prod', '--app-id', OTHER]),
    ]) {
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        'Telemetry workspace is not configured.\nRun havn configure telemetry --profile prod --workspace-id <workspace-id> to configure.\n' +
          '(For an Application Insights resource that still answers the app query API: --app-id <application-id> instead.)\n',
      );
    }
    expect(ctx.fake.requests).toHaveLength(0);
  });

  it('configure list shows every profile and marks the one in use', async () => {
    const r = await run(['configure', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`│ \\* default +│ app +│ ${TEST_APP_ID} │`));
    expect(r.stdout).toMatch(new RegExp(`│ {3}staging +│ app +│ ${STAGING} │`));
    const env = await run(['configure', 'list'], { HAVN_PROFILE: 'staging' });
    expect(env.stdout).toMatch(/│ \* staging /);
    expect(env.stdout).toMatch(/│ {3}default /);
    const shown = await run(['configure', 'telemetry', '--show', '--profile', 'staging']);
    expect(shown.stdout).toContain('Profile:          staging');
    expect(shown.stdout).toContain(`App ID:           ${STAGING}`);
  });

  it('login --profile signs in for that profile’s API URL', async () => {
    const other = 'http://127.0.0.1:9';
    await run(['configure', 'telemetry', '--profile', 'cn', '--app-id', OTHER, '--api-url', other]);
    const r = await havn(['login', '--with-token', '--profile', 'cn'], {
      configDir: dir.dir,
      input: FAKE_TOKEN,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Signed in for ${other}.`);
    // The default profile's API is another one: its sign-in no longer counts.
    const q = await run(['otel', 'errors']);
    expect(q.code).toBe(1);
    expect(q.stderr).toContain(`The stored sign-in is for ${other}, not ${ctx.fake.url}.`);
  });

  it('a stored app id that is not a GUID is reported with the command that fixes it', async () => {
    const path = join(dir.dir, 'config.json');
    const file = JSON.parse(await readFile(path, 'utf8')) as { telemetry: { appId: string } };
    await writeFile(
      path,
      JSON.stringify({ ...file, telemetry: { ...file.telemetry, appId: 'app-1' } }),
    );
    const r = await run(['otel', 'errors']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "The stored Application ID 'app-1' is not a GUID.\nRun havn configure telemetry --app-id <application-id> to fix it.\n",
    );
    expect(ctx.fake.requests).toHaveLength(0);
    expect((await run(['otel', 'errors', '--app-id', OTHER])).code).toBe(0);
  });

  it('configure list with nothing configured says where the configuration would be', async () => {
    const empty = await havn(['configure', 'list'], { configDir: join(dir.dir, 'none') });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toContain(
      `No profiles are configured; the configuration would be stored in ${join(dir.dir, 'none', 'config.json')}.`,
    );
  });
});
