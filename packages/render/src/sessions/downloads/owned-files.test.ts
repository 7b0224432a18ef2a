import { spawnSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionDownloads } from './session-downloads.js';
import {
  BROWSERS,
  startSessionTestApp,
  type SessionTestApp,
} from '../test-support/session-test-app.js';

// Root touches nothing the browser owns through a path (docs/render.md#browser-processes): what
// a browser that escaped its sandbox plants in its own folders, as its own uid, is never followed.

const root = process.getuid?.() === 0;
/** The uid the planted files belong to: a browser's when the tests run as root, ours otherwise. */
const BROWSER_UID = root ? 64_123 : (process.getuid?.() ?? 0);

/** Runs a shell command as the browser's uid (setpriv, as the launcher does). */
function asBrowser(command: string): void {
  const run = root
    ? spawnSync(
        'setpriv',
        [`--reuid=${BROWSER_UID}`, `--regid=${BROWSER_UID}`, '--clear-groups', 'sh', '-c', command],
        { encoding: 'utf8' },
      )
    : spawnSync('sh', ['-c', command], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${command}: ${run.stderr}`);
}

describe('a session folder the browser owns', () => {
  let dir: string;
  let downloads: string;
  let work: string;
  let secret: string;
  const stored: { filename: string; bytes: string }[] = [];
  const events: string[] = [];
  let kept: SessionDownloads;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'havn-owned-test-'));
    await chmod(dir, 0o711);
    downloads = join(dir, 'downloads');
    work = join(dir, 'work');
    await mkdir(downloads);
    await mkdir(work, { mode: 0o700 });
    await chown(downloads, BROWSER_UID, BROWSER_UID);
    // A file of root's the browser cannot read, standing in for /etc/shadow.
    secret = join(dir, 'shadow');
    await writeFile(secret, 'root:secret\n', { mode: 0o600 });
    kept = new SessionDownloads({
      dir: downloads,
      workDir: work,
      browserUid: BROWSER_UID,
      maxBytes: 1024 * 1024,
      maxDownloads: 25,
      maxTotalBytes: 10 * 1024 * 1024,
      store: async ({ path, filename }) => {
        stored.push({ filename, bytes: await readFile(path, 'utf8') });
      },
      cancel: () => Promise.resolve(),
      record: (message) => events.push(message),
    });
  });
  afterAll(async () => {
    kept.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The browser's events for a download `guid` that completed. */
  function completed(guid: string, name: string): void {
    kept.note(
      JSON.stringify({
        method: 'Browser.downloadWillBegin',
        params: { guid, suggestedFilename: name },
      }),
    );
    kept.note(
      JSON.stringify({
        method: 'Browser.downloadProgress',
        params: { guid, receivedBytes: 12, totalBytes: 12, state: 'completed' },
      }),
    );
  }

  it('never follows a link the browser planted under a download name', async () => {
    asBrowser(`ln -s ${secret} ${downloads}/g-link`);
    completed('g-link', 'report.csv');
    await expect
      .poll(() => events)
      .toContain("download report.csv not kept: it is not a plain file of the browser's");
    expect(stored).toEqual([]);
    expect(await readFile(secret, 'utf8')).toBe('root:secret\n');
  });

  it("keeps only the browser's own regular file, copied into the service's folder", async () => {
    asBrowser(`printf 'downloaded' > ${downloads}/g-real`);
    completed('g-real', 'real.csv');
    await expect.poll(() => stored).toEqual([{ filename: 'real.csv', bytes: 'downloaded' }]);
    if (!root) return;
    // A file of another user's under a download name (a hard link to one, or one root left).
    await writeFile(join(downloads, 'g-root'), 'not the browser');
    completed('g-root', 'root.csv');
    await expect
      .poll(() => events)
      .toContain("download root.csv not kept: it is not a plain file of the browser's");
    expect(stored).toHaveLength(1);
  });
});

describe.each(BROWSERS)('frames and the video, against %s', (chromiumPath) => {
  let t: SessionTestApp;

  beforeAll(async () => {
    t = await startSessionTestApp({ chromiumPath });
  });
  afterAll(async () => {
    await t.close();
  });

  it("are written in a folder of the service's, out of the browser's reach", async () => {
    const { id } = await t.openSession({ url: t.fixture.url, record: true });
    const dir = t.manager.get(id)!.dir;
    const work = await stat(join(dir, 'work'));
    expect(work.mode & 0o777).toBe(0o700);
    expect(work.uid).toBe(process.getuid?.());
    await expect.poll(() => t.manager.get(id)?.recorder?.frameCount ?? 0).toBeGreaterThan(0);
    if (root) {
      // The browser's uid can neither list the session's folder nor plant anything in work/.
      const uid = (await stat(join(dir, 'downloads'))).uid;
      expect(uid).not.toBe(0);
      for (const command of [`ls ${dir}`, `ln -s /etc/shadow ${dir}/work/frames/x.jpg`]) {
        const run = spawnSync('setpriv', [
          `--reuid=${uid}`,
          `--regid=${uid}`,
          '--clear-groups',
          'sh',
          '-c',
          command,
        ]);
        expect(run.status, command).not.toBe(0);
      }
    }
    const closed = await t.api('DELETE', `/v1/sessions/${id}`);
    expect(closed.body['artifacts']).toMatchObject([{ contentType: 'video/mp4' }]);
  });
});
