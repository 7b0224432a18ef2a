import { spawnSync } from 'node:child_process';
import { chown } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { browserLaunchArgs } from './launch-args.js';
import { BrowserMemory, type BrowserCgroup } from './memory-cgroup.js';

// How the service starts its browsers (docs/render.md#browser-processes). When the service runs
// as root, every browser, the warm one for renders and each session's, runs under a uid of its
// own from BROWSER_UIDS, so a browser that stepped outside the policy could write neither the
// service's files nor another session's. Chromium's own sandbox needs user namespaces; where the
// machine grants them to that uid, it is on, otherwise the browser runs with --no-sandbox (as it
// must when it runs as root).

/** The script that becomes Chromium under a uid (packages/render/launcher). */
const RUN_AS = fileURLToPath(new URL('../../launcher/run-browser-as.sh', import.meta.url));

/** What Playwright is told to launch: the program, its flags and its whole environment. */
export interface BrowserLaunch {
  executablePath: string;
  args: string[];
  env: Record<string, string>;
  /** Playwright adds --no-sandbox unless told otherwise. */
  chromiumSandbox: boolean;
}

export interface UidRange {
  first: number;
  last: number;
}

/**
 * What Chromium's namespace sandbox does first, tried the same way: a user namespace with a PID
 * and a network namespace, then chroot inside it. A container's seccomp profile may allow the
 * namespaces but refuse chroot to a container without CAP_SYS_CHROOT (Docker's and Podman's
 * defaults do), and then the browser would fail at its first launch instead of running without
 * the sandbox (docs/deploy.md#chromium-sandbox).
 */
const SANDBOX_PROBE = 'unshare --user --map-root-user --pid --net --fork chroot / true'.split(' ');

/** Can a process under `uid` (or this process's own) make the namespaces Chromium's sandbox needs? */
function userNamespacesWork(uid: number | undefined): boolean {
  const asUid = uid === undefined ? [] : [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups'];
  const probe = spawnSync('setpriv', [...asUid, ...SANDBOX_PROBE], {
    stdio: 'ignore',
    timeout: 5000,
  });
  return probe.status === 0;
}

export class BrowserRuntime {
  private readonly free: number[];
  private readonly taken = new Set<number>();
  /** True when browsers run under uids of their own. */
  readonly switchesUser: boolean;

  /** Each browser's memory cgroup, or why there is none (docs/render.md#memory-bounds). */
  readonly memory: BrowserMemory;

  private constructor(
    private readonly chromiumPath: string,
    /** The uids browsers take turns with; empty when they run as the service's own user. */
    uids: readonly number[],
    /** Chromium's own sandbox is on. */
    readonly sandbox: boolean,
    maxMemoryBytes: number | undefined,
  ) {
    this.free = [...uids];
    this.switchesUser = uids.length > 0;
    this.memory = BrowserMemory.detect(maxMemoryBytes, { switchesUser: this.switchesUser });
  }

  /**
   * Decides once, at start: uids only when this process is root and a range is given; the
   * sandbox when a browser's user can make a user namespace and is not root.
   */
  static detect(
    chromiumPath: string,
    range: UidRange | undefined,
    /** BROWSER_MAX_MEMORY; undefined for `off`. */
    maxMemoryBytes?: number,
  ): BrowserRuntime {
    const root = process.getuid?.() === 0;
    const uids: number[] = [];
    if (root && range) for (let uid = range.first; uid <= range.last; uid++) uids.push(uid);
    const runsAsRoot = root && uids.length === 0;
    const sandbox = !runsAsRoot && userNamespacesWork(uids[0]);
    return new BrowserRuntime(chromiumPath, uids, sandbox, maxMemoryBytes);
  }

  #version: string | undefined;

  /**
   * The browser's version, e.g. `156.0.8078.79`, from `chromium --version`: asked the first time a
   * session needs it (for its user agent), not at start, where renders never need it.
   */
  get version(): string {
    if (this.#version === undefined) {
      const printed = spawnSync(this.chromiumPath, ['--version'], {
        encoding: 'utf8',
        timeout: 10_000,
      });
      this.#version = /\d+(\.\d+){3}/.exec(printed.stdout)?.[0] ?? '0.0.0.0';
    }
    return this.#version;
  }

  /**
   * A uid for one browser and the folders it may write (given to it), or undefined when browsers
   * run as the service's own user. Throws when every uid is taken.
   */
  async acquire(ownedDirs: readonly string[]): Promise<number | undefined> {
    if (!this.switchesUser) return undefined;
    const uid = this.free.shift();
    if (uid === undefined) throw new Error('every uid in BROWSER_UIDS is in use');
    this.taken.add(uid);
    try {
      for (const dir of ownedDirs) await chown(dir, uid, uid);
    } catch (err) {
      this.release(uid);
      throw err;
    }
    return uid;
  }

  release(uid: number | undefined): void {
    if (uid === undefined || !this.taken.delete(uid)) return;
    this.free.push(uid);
  }

  /**
   * How to launch one browser behind `proxyUrl`, with `home` as its HOME (so anything it writes
   * by default, downloads included, lands there) and under `uid` when one was acquired. The
   * environment is built, not inherited: the service's own (its token among it) stays out.
   */
  launch(
    proxyUrl: string,
    home: string,
    uid: number | undefined,
    cgroup?: BrowserCgroup,
  ): BrowserLaunch {
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      XDG_CONFIG_HOME: `${home}/.config`,
      XDG_CACHE_HOME: `${home}/.cache`,
    };
    for (const name of ['LANG', 'LC_ALL', 'TZ', 'FONTCONFIG_PATH']) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
    const args = browserLaunchArgs(proxyUrl, { sandbox: this.sandbox });
    const chromiumSandbox = this.sandbox;
    if (uid === undefined) return { executablePath: this.chromiumPath, args, env, chromiumSandbox };
    return {
      executablePath: RUN_AS,
      args,
      env: {
        ...env,
        HAVN_BROWSER_UID: String(uid),
        HAVN_BROWSER_EXE: this.chromiumPath,
        ...(cgroup && { HAVN_BROWSER_CGROUP: cgroup.procsFile }),
      },
      chromiumSandbox,
    };
  }
}
