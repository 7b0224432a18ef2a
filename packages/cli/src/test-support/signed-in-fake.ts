import { afterAll, beforeAll, beforeEach } from 'vitest';
import { FAKE_TOKEN, FakeAppInsights } from './fake-app-insights.js';
import { TEST_APP_ID, signedInConfigDir } from './run-havn.js';
import { TEST_BACKEND, backendFacts, nameOn, type Backend } from './telemetry-backend.js';

/** A fake query API and a config dir configured for it and signed in, for one test file. */
export interface SignedInFake {
  readonly fake: FakeAppInsights;
  readonly configDir: string;
  /** The backend this run of the file tests (telemetry-backend.ts). */
  readonly backend: Backend;
  /** What the backend calls a classic table or column. */
  readonly name: (classic: string) => string;
  /** Its ID, -v line, query path, service name and configure options. */
  readonly facts: ReturnType<typeof backendFacts>;
}

/**
 * Starts the fake and signs a fresh config dir in for the backend under test (beforeAll), resets the fake before each test,
 * and closes both after the file. Call at the top level of a test file.
 */
export function useSignedInFake(): SignedInFake {
  let fake: FakeAppInsights | undefined;
  let config: { dir: string; cleanup: () => Promise<void> } | undefined;
  const facts = backendFacts(TEST_BACKEND, TEST_APP_ID);
  beforeAll(async () => {
    fake = await FakeAppInsights.start();
    config = await signedInConfigDir(fake.url, FAKE_TOKEN, facts.configure);
  });
  afterAll(async () => {
    await fake?.close();
    await config?.cleanup();
  });
  beforeEach(() => {
    fake?.reset();
  });
  return {
    backend: TEST_BACKEND,
    name: (classic) => nameOn(TEST_BACKEND, classic),
    facts,
    get fake() {
      if (!fake) throw new Error('useSignedInFake: the fake starts in beforeAll');
      return fake;
    },
    get configDir() {
      if (!config) throw new Error('useSignedInFake: the config dir is made in beforeAll');
      return config.dir;
    },
  };
}
