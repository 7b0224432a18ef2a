import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_TOKEN, FakeAppInsights } from '../test-support/fake-app-insights.js';
import { TEST_APP_ID, havn, jwtWithExpiry, tempConfigDir } from '../test-support/run-havn.js';

const NOT_AUTHENTICATED = "Not authenticated. Run 'havn login' to sign in.\n";

// A stand-in for the Azure CLI: logs its arguments and prints what `az account
// get-access-token` prints, with tokens numbered by call.
const FAKE_AZ = `#!/bin/sh
echo "$@" >> "$AZ_LOG"
if [ -n "$AZ_FAIL" ]; then echo "ERROR: Please run 'az login' to setup account." >&2; exit 1; fi
n=$(wc -l < "$AZ_LOG" | tr -d ' ')
now=$(date +%s)
printf '{"accessToken":"az-token-%s","expiresOn":"2030-01-01 00:00:00.000000","expires_on":%s,"subscription":"s","tenant":"t","tokenType":"Bearer"}\\n' "$n" "$((now + AZ_TTL))"
`;

let fake: FakeAppInsights;
let config: { dir: string; cleanup: () => Promise<void> };
const run = (args: string[], input?: string, env?: Record<string, string>) =>
  havn(args, {
    configDir: config.dir,
    ...(input === undefined ? {} : { input }),
    ...(env ? { env } : {}),
  });

beforeAll(async () => {
  fake = await FakeAppInsights.start();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  fake.reset();
  config = await tempConfigDir();
  await run(['configure', 'telemetry', '--app-id', TEST_APP_ID, '--api-url', fake.url]);
});
afterEach(async () => {
  await config.cleanup();
});

describe('havn login --with-token', () => {
  it('stores the token from stdin with mode 0600 and queries with it', async () => {
    const token = jwtWithExpiry(Math.floor(Date.now() / 1000) + 3600);
    const r = await run(['login', '--with-token'], `${token}\n`);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Signed in for ${fake.url}; the token expires at`);
    const path = join(config.dir, 'credentials.json');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    fake.acceptedToken = token;
    expect((await run(['otel', 'errors'])).code).toBe(0);
    expect(fake.last.headers.authorization).toBe(`Bearer ${token}`);
    // The token never shows up in output.
    expect(r.stdout + r.stderr).not.toContain(token);
  });

  it('refuses an already expired token', async () => {
    const r = await run(
      ['login', '--with-token'],
      jwtWithExpiry(Math.floor(Date.now() / 1000) - 60),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('That token expired at');
    expect((await run(['otel', 'errors'])).stderr).toBe(NOT_AUTHENTICATED);
  });

  it('refuses empty input with exit 2', async () => {
    const r = await run(['login', '--with-token'], '  \n');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--with-token needs an access token on standard input.');
  });

  it('refuses --with-token together with --azure-cli', async () => {
    const r = await run(['login', '--with-token', '--azure-cli'], 'x');
    expect(r.code).toBe(2);
  });
});

describe('havn login option checks', () => {
  it.each([
    [
      ['--authority', 'https://login.example/t', '--tenant', 'x'],
      'Give the tenant inside --authority',
    ],
    [['--authority', 'https://login.example'], '--authority must be an https URL with a tenant'],
    [['--with-token', '--tenant', 'x'], 'do not apply to --with-token'],
    [['--azure-cli', '--client-id', 'x'], 'do not apply to --azure-cli'],
  ])('refuses %j with exit 2', async (args, message) => {
    const r = await run(['login', ...args], 'token');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});

describe('havn logout', () => {
  it('forgets the token: the next query is not authenticated', async () => {
    await run(['login', '--with-token'], FAKE_TOKEN);
    expect((await run(['otel', 'errors'])).code).toBe(0);
    const out = await run(['logout']);
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('Signed out');
    const r = await run(['otel', 'errors']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(NOT_AUTHENTICATED);
    expect((await run(['logout'])).stderr).toContain('Not signed in.');
  });
});

describe('havn login --azure-cli', () => {
  let bin: string;
  let log: string;
  const azEnv = (extra: Record<string, string> = {}) => ({
    PATH: `${bin}:/usr/bin:/bin`,
    AZ_LOG: log,
    AZ_TTL: '3600',
    ...extra,
  });

  beforeEach(async () => {
    bin = join(config.dir, 'bin');
    log = join(config.dir, 'az.log');
    await mkdir(bin);
    await writeFile(join(bin, 'az'), FAKE_AZ);
    await chmod(join(bin, 'az'), 0o755);
    await writeFile(log, '');
  });

  it('takes the token from az for the configured API and uses it', async () => {
    const r = await run(['login', '--azure-cli'], undefined, azEnv());
    expect(r.code).toBe(0);
    expect(await readFile(log, 'utf8')).toBe(
      `account get-access-token --resource ${fake.url} --output json\n`,
    );
    fake.acceptedToken = 'az-token-1';
    const q = await run(['otel', 'traces'], undefined, azEnv());
    expect(q.code).toBe(0);
    expect(fake.last.headers.authorization).toBe('Bearer az-token-1');
  });

  it('passes --tenant to az', async () => {
    expect(
      (await run(['login', '--azure-cli', '--tenant', 'contoso'], undefined, azEnv())).code,
    ).toBe(0);
    expect(await readFile(log, 'utf8')).toContain('--tenant contoso');
  });

  it('renews a token about to expire through az, silently', async () => {
    expect((await run(['login', '--azure-cli'], undefined, azEnv({ AZ_TTL: '60' }))).code).toBe(0);
    fake.acceptedToken = 'az-token-2';
    const q = await run(['otel', 'errors', '--format', 'json'], undefined, azEnv());
    expect(q.code).toBe(0);
    expect(q.stdout).toBe('[]\n');
    expect(fake.last.headers.authorization).toBe('Bearer az-token-2');
  });

  it('when az cannot renew a token about to expire, the query still uses it', async () => {
    expect((await run(['login', '--azure-cli'], undefined, azEnv({ AZ_TTL: '60' }))).code).toBe(0);
    fake.acceptedToken = 'az-token-1';
    const q = await run(['otel', 'errors'], undefined, azEnv({ AZ_FAIL: '1' }));
    expect(q.code).toBe(0);
    expect(fake.last.headers.authorization).toBe('Bearer az-token-1');
  });

  it('when az cannot renew an expired token, the query is not authenticated', async () => {
    expect((await run(['login', '--azure-cli'], undefined, azEnv({ AZ_TTL: '-10' }))).code).toBe(0);
    const q = await run(['otel', 'errors'], undefined, azEnv({ AZ_FAIL: '1' }));
    expect(q.code).toBe(1);
    expect(q.stderr.startsWith(NOT_AUTHENTICATED)).toBe(true);
    expect(q.stderr).toContain("Please run 'az login'");
    expect(fake.requests).toHaveLength(0);
  });

  it('says what to do when az fails or is missing', async () => {
    const failed = await run(['login', '--azure-cli'], undefined, azEnv({ AZ_FAIL: '1' }));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("ERROR: Please run 'az login' to setup account.");
    const missing = await run(['login', '--azure-cli'], undefined, {
      PATH: join(config.dir, 'none'),
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("The Azure CLI ('az') was not found on PATH.");
  });
});
