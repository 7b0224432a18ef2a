import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { havn, tempConfigDir } from '../test-support/run-havn.js';

const APP = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const WORKSPACE = '7e5d4c3b-2a19-4807-96f5-e4d3c2b1a098';
const CONNECTION_STRING =
  'InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://westeurope-5.in.applicationinsights.azure.com/;LiveEndpoint=https://westeurope.livediagnostics.monitor.azure.com/';

let config: { dir: string; cleanup: () => Promise<void> };
const run = (...args: string[]) =>
  havn(['configure', 'telemetry', ...args], { configDir: config.dir });

beforeEach(async () => {
  config = await tempConfigDir();
});
afterEach(async () => {
  await config.cleanup();
});

describe('havn configure telemetry', () => {
  it('stores the configuration and --show prints it, with the default API URL', async () => {
    const saved = await run(
      '--app-id',
      '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
      '--resource-name',
      'shop-prod',
      '--subscription-id',
      'sub-1',
    );
    expect(saved.code).toBe(0);
    expect(saved.stderr).toContain('Saved the telemetry configuration');
    const file = JSON.parse(await readFile(join(config.dir, 'config.json'), 'utf8')) as unknown;
    expect(file).toEqual({
      telemetry: {
        appId: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
        resourceName: 'shop-prod',
        subscriptionId: 'sub-1',
        apiUrl: 'https://api.applicationinsights.io',
      },
    });
    const shown = await run('--show');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('App ID:           0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0');
    expect(shown.stdout).toContain('Resource name:    shop-prod');
    expect(shown.stdout).toContain('Subscription ID:  sub-1');
    expect(shown.stdout).toContain('API URL:          https://api.applicationinsights.io');
  });

  it('--workspace-id: a workspace profile on the Log Analytics endpoint; --show says so', async () => {
    const saved = await run('--workspace-id', WORKSPACE, '--resource-name', 'shop-logs');
    expect(saved.code).toBe(0);
    const file = JSON.parse(await readFile(join(config.dir, 'config.json'), 'utf8')) as unknown;
    expect(file).toEqual({
      telemetry: {
        workspaceId: WORKSPACE,
        resourceName: 'shop-logs',
        apiUrl: 'https://api.loganalytics.io',
      },
    });
    const shown = await run('--show');
    expect(shown.stdout).toContain('Backend:          Log Analytics workspace\n');
    expect(shown.stdout).toContain(`Workspace ID:     ${WORKSPACE}\n`);
    expect(shown.stdout).toContain('API URL:          https://api.loganalytics.io\n');
    // The token's audience is the API URL's: a sign-in is for the Log Analytics API.
    expect(
      (await havn(['login', '--with-token'], { configDir: config.dir, input: 't' })).code,
    ).toBe(0);
    const credential = JSON.parse(await readFile(join(config.dir, 'credentials.json'), 'utf8')) as {
      apiUrl: string;
    };
    expect(credential.apiUrl).toBe('https://api.loganalytics.io');
  });

  it('setting one ID clears the other, and moves to the same cloud’s endpoint of the other API', async () => {
    await run(
      '--app-id',
      APP,
      '--api-url',
      'https://api.applicationinsights.azure.cn',
      '--resource-name',
      'r',
    );
    const switched = await run('--workspace-id', WORKSPACE);
    expect(switched.code).toBe(0);
    expect(switched.stderr).toContain(
      `It now queries Log Analytics workspace ${WORKSPACE} instead of Application Insights app ${APP}.`,
    );
    expect(switched.stderr).toContain(
      'The API URL is now https://api.loganalytics.azure.cn; sign in for it with havn login.',
    );
    const file = JSON.parse(await readFile(join(config.dir, 'config.json'), 'utf8')) as {
      telemetry: Record<string, unknown>;
    };
    expect(file.telemetry).toEqual({
      workspaceId: WORKSPACE,
      resourceName: 'r',
      apiUrl: 'https://api.loganalytics.azure.cn',
    });
    expect((await run('--app-id', APP)).code).toBe(0);
    const back = JSON.parse(await readFile(join(config.dir, 'config.json'), 'utf8')) as {
      telemetry: Record<string, unknown>;
    };
    expect(back.telemetry).toEqual({
      appId: APP,
      resourceName: 'r',
      apiUrl: 'https://api.applicationinsights.azure.cn',
    });
  });

  it.each([
    [['--workspace-id', 'shop-logs'], '--workspace-id must be a GUID such as'],
    [
      [
        '--workspace-id',
        '/subscriptions/x/resourceGroups/y/providers/Microsoft.OperationalInsights/workspaces/z',
      ],
      'not its resource ID',
    ],
    [['--workspace-id', WORKSPACE, '--app-id', APP], 'give --workspace-id or --app-id, not both'],
    [['--app-id', 'shop'], '--app-id must be a GUID such as'],
  ])('refuses %j with exit 2 and saves nothing', async (args, message) => {
    const r = await run(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect((await run('--show')).code).toBe(1);
  });

  it('changes one setting and keeps the others', async () => {
    await run('--app-id', APP, '--resource-name', 'r');
    expect((await run('--api-url', 'https://api.applicationinsights.azure.cn/')).code).toBe(0);
    const shown = await run('--show');
    expect(shown.stdout).toContain(`App ID:           ${APP}`);
    expect(shown.stdout).toContain('Resource name:    r');
    expect(shown.stdout).toContain('API URL:          https://api.applicationinsights.azure.cn\n');
  });

  it('keeps the directory private', async () => {
    await run('--app-id', APP);
    expect((await stat(config.dir)).mode & 0o777).toBe(0o700);
  });

  it('--show without a configuration: not configured, and where the file would be', async () => {
    const r = await run('--show');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'Telemetry workspace is not configured.\nRun havn configure telemetry --workspace-id <workspace-id> to configure.\n' +
        '(For an Application Insights resource that still answers the app query API: --app-id <application-id> instead.)\n' +
        `The configuration would be stored in ${join(config.dir, 'config.json')}.\n`,
    );
  });

  it('refuses a connection string with exit 2, explains it and saves nothing', async () => {
    const r = await run('--app-id', CONNECTION_STRING);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--app-id was given a connection string');
    expect(r.stderr).toContain('API Access > Application ID');
    // The connection string is not echoed back.
    expect(r.stderr).not.toContain('InstrumentationKey');
    expect((await run('--show')).code).toBe(1);
  });

  it.each([
    [[], 'Give --workspace-id or --app-id'],
    [['--resource-name', 'x'], '--workspace-id (or --app-id) is required the first time'],
    [['--app-id', ''], '--app-id must be a GUID'],
    [
      ['--app-id', 'not-a-guid'],
      "--app-id must be a GUID such as 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0; got 'not-a-guid'",
    ],
    [['--app-id', `${APP}0`], '--app-id must be a GUID'],
    [['--app-id', APP, '--api-url', 'not a url'], '--api-url must be an absolute URL'],
    [['--app-id', APP, '--api-url', 'http://example.com'], '--api-url must use https'],
    [['--app-id', APP, '--api-url', 'https://x.io/?k=1'], 'must not carry a query'],
    [['--app-id', APP, '--profile', '../etc'], '--profile must be 1 to 64 letters'],
  ])('refuses %j with exit 2 and saves nothing', async (args, message) => {
    const r = await run(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect((await run('--show')).code).toBe(1);
  });

  it('the not-configured hint works as printed, once the placeholder is filled in', async () => {
    const r = await havn(['otel', 'errors'], { configDir: config.dir });
    expect(r.code).toBe(1);
    const hint = /^Run (havn configure telemetry .*) to configure\.$/m.exec(r.stderr)?.[1];
    expect(hint).toBe('havn configure telemetry --workspace-id <workspace-id>');
    const args = (hint ?? '').replace('<workspace-id>', WORKSPACE).split(' ').slice(1);
    const configured = await havn(args, { configDir: config.dir });
    expect(configured.code).toBe(0);
    expect((await run('--show')).stdout).toContain(`Workspace ID:     ${WORKSPACE}`);
  });

  it('every command has help with examples', async () => {
    for (const command of [
      ['configure', 'telemetry'],
      ['configure', 'list'],
      ['login'],
      ['logout'],
      ['otel'],
      ['otel', 'errors'],
      ['otel', 'traces'],
      ['otel', 'logs'],
      ['otel', 'spans'],
      ['otel', 'trace'],
      ['otel', 'query'],
      ['configure', 'render'],
      ['configure', 'forms'],
      ['render'],
      ['render', 'shot'],
      ['render', 'pdf'],
      ['render', 'batch'],
      ['render', 'session'],
      ['render', 'artifacts'],
      ['forms'],
      ['forms', 'list'],
      ['forms', 'submissions'],
      ['forms', 'export'],
      ['forms', 'definition'],
      ['forms', 'definition', 'get'],
      ['forms', 'definition', 'put'],
      ['forms', 'webhooks'],
      ['forms', 'webhooks', 'test'],
      ['completion'],
    ]) {
      const r = await havn([...command, '--help'], { configDir: config.dir });
      expect(r.code, command.join(' ')).toBe(0);
      expect(r.stdout, command.join(' ')).toContain('Example');
    }
    const otel = await havn(['otel', '--help'], { configDir: config.dir });
    const listed = otel.stdout.split('Commands:')[1]?.split('\n\n')[0] ?? '';
    expect(listed.match(/^ {2}\w+/gm)).toEqual([
      '  errors',
      '  traces',
      '  logs',
      '  spans',
      '  trace',
      '  query',
    ]);
    const version = await havn(['--version'], { configDir: config.dir });
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
