import { afterAll, beforeAll, beforeEach } from 'vitest';
import { FAKE_TOKEN, FakeAppInsights } from './fake-app-insights.js';
import { signedInConfigDir } from './run-havn.js';

/** A fake query API and a config dir configured for it and signed in, for one test file. */
export interface SignedInFake {
  readonly fake: FakeAppInsights;
  readonly configDir: string;
}

/**
 * Starts the fake and signs a fresh config dir in (beforeAll), resets the fake before each test,
 * and closes both after the file. Call at the top level of a test file.
 */
export function useSignedInFake(): SignedInFake {
  let fake: FakeAppInsights | undefined;
  let config: { dir: string; cleanup: () => Promise<void> } | undefined;
  beforeAll(async () => {
    fake = await FakeAppInsights.start();
    config = await signedInConfigDir(fake.url, FAKE_TOKEN);
  });
  afterAll(async () => {
    await fake?.close();
    await config?.cleanup();
  });
  beforeEach(() => {
    fake?.reset();
  });
  return {
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
