import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { havn, tempConfigDir } from '../test-support/run-havn.js';

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

  it('changes one setting and keeps the others', async () => {
    await run('--app-id', 'first', '--resource-name', 'r');
    expect((await run('--api-url', 'https://api.applicationinsights.azure.cn/')).code).toBe(0);
    const shown = await run('--show');
    expect(shown.stdout).toContain('App ID:           first');
    expect(shown.stdout).toContain('Resource name:    r');
    expect(shown.stdout).toContain('API URL:          https://api.applicationinsights.azure.cn\n');
  });

  it('keeps the directory private', async () => {
    await run('--app-id', 'a');
    expect((await stat(config.dir)).mode & 0o777).toBe(0o700);
  });

  it('--show without a configuration: the spec message, exit 1', async () => {
    const r = await run('--show');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'Telemetry workspace is not configured.\nRun havn configure telemetry to configure.\n',
    );
  });

  it.each([
    [[], 'Give --app-id'],
    [['--resource-name', 'x'], '--app-id is required the first time'],
    [['--app-id', ''], '--app-id must be a single non-empty word'],
    [['--app-id', 'a', '--api-url', 'not a url'], '--api-url must be an absolute URL'],
    [['--app-id', 'a', '--api-url', 'http://example.com'], '--api-url must use https'],
    [['--app-id', 'a', '--api-url', 'https://x.io/?k=1'], 'must not carry a query'],
  ])('refuses %j with exit 2', async (args, message) => {
    const r = await run(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('every command has help with examples', async () => {
    for (const command of [
      ['configure', 'telemetry'],
      ['login'],
      ['logout'],
      ['otel'],
      ['otel', 'errors'],
      ['otel', 'traces'],
      ['otel', 'logs'],
      ['otel', 'spans'],
    ]) {
      const r = await havn([...command, '--help'], { configDir: config.dir });
      expect(r.code, command.join(' ')).toBe(0);
      expect(r.stdout, command.join(' ')).toContain('Example');
    }
    const otel = await havn(['otel', '--help'], { configDir: config.dir });
    const listed = otel.stdout.split('Commands:')[1]?.split('\n\n')[0] ?? '';
    expect(listed.match(/^ {2}\w+/gm)).toEqual(['  errors', '  traces', '  logs', '  spans']);
    const version = await havn(['--version'], { configDir: config.dir });
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
