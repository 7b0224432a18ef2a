import { chmod, mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserRuntime } from '../browser/browser-runtime.js';
import type { BrowserCgroup } from '../browser/memory-cgroup.js';
import type { PooledBrowserOptions } from '../browser/session-browser.js';
import type { GuardProxy, ProxyChannel } from '../netguard/guard-proxy.js';

// What one session browser runs in, made before it is launched, the same for a fresh launch and
// for the warm pool (docs/sessions.md#the-warm-pool): a folder of its own, a uid, a memory cgroup
// and a proxy channel. Released whole when the browser is gone; never handed to a second browser.

export interface SlotDeps {
  proxy: Pick<GuardProxy, 'openChannel'>;
  runtime: BrowserRuntime;
  /** Parent of each session's own temp dir; default the OS temp dir. */
  tmpDir?: string | undefined;
  /** SESSION_MAX_DISK_BYTES: the HTTP cache gets a quarter of it, at most HTTP_CACHE_MAX_BYTES. */
  maxDiskBytes: number;
}

/** The most a session browser's HTTP cache holds (Chromium's own default grows with the disk). */
const HTTP_CACHE_MAX_BYTES = 64 * 1024 * 1024;

export class BrowserSlot {
  private constructor(
    private readonly runtime: BrowserRuntime,
    /** The session's folder: removed with the slot. */
    readonly dir: string,
    readonly downloadDir: string,
    readonly workDir: string,
    readonly uid: number | undefined,
    readonly cgroup: BrowserCgroup | undefined,
    readonly channel: ProxyChannel,
    /** How the browser of this slot is launched (binary, flags, environment, profile folder). */
    readonly launch: PooledBrowserOptions,
    /** What the browser writes besides downloads: its home and its profile (the disk bound's). */
    readonly browserDirs: readonly string[],
  ) {}

  static async open(deps: SlotDeps): Promise<BrowserSlot> {
    const dir = await realpath(await mkdtemp(join(deps.tmpDir ?? tmpdir(), 'havn-session-')));
    let uid: number | undefined;
    let cgroup: BrowserCgroup | undefined;
    try {
      const { home, downloadDir, workDir } = await sessionFolders(dir);
      // Its home and downloads are the browser's own: the only places it may write. The folder
      // above them, and `work/` (frames, the video, kept downloads), are the service's.
      uid = await deps.runtime.acquire([home, downloadDir]);
      // docs/render.md#memory-bounds: the browser's own memory cgroup, when the host has one.
      cgroup = deps.runtime.memory.create();
      const channel = await deps.proxy.openChannel({ keepRefusals: true });
      const launch = deps.runtime.launch(channel.url, home, uid, cgroup);
      const userDataDir = join(dir, 'profile');
      const cacheBytes = Math.min(HTTP_CACHE_MAX_BYTES, Math.floor(deps.maxDiskBytes / 4));
      return new BrowserSlot(
        deps.runtime,
        dir,
        downloadDir,
        workDir,
        uid,
        cgroup,
        channel,
        { ...launch, args: [...launch.args, `--disk-cache-size=${cacheBytes}`], userDataDir },
        [home, userDataDir],
      );
    } catch (err) {
      await cgroup?.remove();
      deps.runtime.release(uid);
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** Once the browser is gone: channel closed, cgroup removed, uid free again. */
  async release(): Promise<void> {
    await this.channel.close();
    await this.cgroup?.remove();
    this.runtime.release(this.uid);
  }

  /** release() and the folder removed. */
  async discard(): Promise<void> {
    await this.release();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * A session's folders (docs/render.md#browser-processes): `dir` and `work/` belong to the service
 * (the browser may pass through `dir`, not list or change it); `home/`, `profile/` (made by the
 * launcher) and `downloads/` are handed to the browser. So a name the service opens in a folder of
 * the browser's is always that folder's own entry: the browser cannot swap a folder above it for a
 * link.
 */
async function sessionFolders(
  dir: string,
): Promise<{ home: string; downloadDir: string; workDir: string }> {
  const home = join(dir, 'home');
  const downloadDir = join(dir, 'downloads');
  const workDir = join(dir, 'work');
  await chmod(dir, 0o711);
  await mkdir(home);
  await mkdir(downloadDir);
  await mkdir(workDir, { mode: 0o700 });
  // Where Chromium downloads when nobody set a behaviour ($HOME/Downloads): the watched folder.
  await symlink(downloadDir, join(home, 'Downloads'));
  return { home, downloadDir, workDir };
}
