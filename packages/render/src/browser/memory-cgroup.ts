import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { totalmem } from 'node:os';
import { dirname, join } from 'node:path';

// A memory bound per browser (docs/render.md#memory-bounds): each browser, the warm one for
// renders and each session's, runs in a memory cgroup of its own, which the launcher joins
// before it becomes Chromium (packages/render/launcher/run-browser-as.sh). cgroup v2's
// `memory.max` where the host has the memory controller there; else v1's
// `memory.limit_in_bytes` (hosts with hybrid cgroups keep the memory controller on v1). The
// kernel stops a browser at its bound by killing one of its processes; the service watches the
// cgroup's OOM kill count and then ends the whole browser, so it dies alone and at once.
// RLIMIT_AS is no substitute: V8 reserves far more address space than it uses. Where no cgroup
// can be made (not root, a container without a writable cgroup), the service says so at start
// and in /healthz, and browsers run unbounded.

/**
 * What the service could arrange, for the start-up log and /healthz. Without a cgroup per browser,
 * `sharedBytes` is the memory limit of the service's own cgroup (a container's, a systemd unit's
 * MemoryMax) when it has one: it bounds the service and its browsers together.
 */
export type MemoryBoundStatus =
  | { readonly enforced: true; readonly cgroup: 'v1' | 'v2'; readonly bytes: number }
  | { readonly enforced: false; readonly reason: string; readonly sharedBytes?: number };

interface Hierarchy {
  readonly version: 'v1' | 'v2';
  /** Where the memory hierarchy is mounted. */
  readonly mount: string;
  /** The service's own cgroup in it. */
  readonly own: string;
}

/**
 * `path` (as /proc/self/cgroup names it) under the mount at `mountPoint`. A container sees only
 * its own cgroup, mounted as the root of the hierarchy, while /proc/self/cgroup still names the
 * host's full path: /proc/self/mountinfo says which part of the path the mount leaves out.
 */
function underMount(mountPoint: string, path: string): string {
  let mounted = '/';
  try {
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const [, , , root, point] = line.split(' ');
      if (point === mountPoint && root !== undefined) mounted = root;
    }
  } catch {
    // No mountinfo: the hierarchy is taken as mounted whole.
  }
  const inside =
    mounted !== '/' && (path === mounted || path.startsWith(`${mounted}/`))
      ? path.slice(mounted.length)
      : path;
  return join(mountPoint, inside);
}

/** Where this process's memory cgroup is, from /proc/self/cgroup and the mounts under /sys/fs/cgroup. */
function findHierarchy(root: string): Hierarchy | string {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n');
  } catch {
    return 'no /proc/self/cgroup';
  }
  for (const line of lines) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (path === undefined) continue;
    const mount = join(root, 'memory');
    if (controllers?.split(',').includes('memory') && existsSync(mount)) {
      return { version: 'v1', mount, own: underMount(mount, path) };
    }
  }
  const unified = lines.find((line) => line.startsWith('0::'))?.slice(3);
  if (unified !== undefined) {
    // Pure v2 mounts at the root; hybrid hosts mount it at `unified/`.
    for (const mount of [root, join(root, 'unified')]) {
      const controllers = join(mount, 'cgroup.controllers');
      if (
        existsSync(controllers) &&
        readFileSync(controllers, 'utf8').split(/\s+/).includes('memory')
      ) {
        return { version: 'v2', mount, own: underMount(mount, unified) };
      }
    }
  }
  return 'the host has no memory controller this process can reach';
}

/** v1 writes "no limit" as the largest page count in bytes (about 2^63); anything near is none. */
const NO_LIMIT = 2 ** 62;

/**
 * The tightest memory limit on the service's own cgroup and those above it, up to the mount; or
 * undefined when none is below the machine's memory (a limit the machine cannot reach bounds
 * nothing).
 */
function ownLimit(hierarchy: Hierarchy): number | undefined {
  const file = hierarchy.version === 'v2' ? 'memory.max' : 'memory.limit_in_bytes';
  let tightest: number | undefined;
  for (let dir = hierarchy.own; ; dir = dirname(dir)) {
    try {
      const bytes = Number(readFileSync(join(dir, file), 'utf8').trim());
      // `max` (v2's none) reads as NaN.
      if (Number.isFinite(bytes) && bytes < NO_LIMIT) tightest = Math.min(tightest ?? bytes, bytes);
    } catch {
      // The root cgroup has no limit file.
    }
    if (dir === hierarchy.mount || !dir.startsWith(hierarchy.mount)) break;
  }
  return tightest !== undefined && tightest < totalmem() ? tightest : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes what a service that died without closing left under `own` (empty cgroups only). */
function sweepStale(own: string): void {
  for (const name of readdirSync(own)) {
    const pid = /^havn-render-(\d+)-[0-9a-f]+$/.exec(name)?.[1];
    if (pid === undefined || alive(Number(pid))) continue;
    const dir = join(own, name);
    try {
      for (const child of readdirSync(dir, { withFileTypes: true })) {
        if (child.isDirectory()) rmdirSync(join(dir, child.name));
      }
      rmdirSync(dir);
    } catch {
      // A process still in it: left for a later start.
    }
  }
}

/** Watches one browser's cgroup for the kernel's OOM kills (BrowserCgroup.watch). */
export interface MemoryWatch {
  /**
   * True once the kernel has killed a process of the browser for want of memory; read from the
   * cgroup now, not at the last poll, so that a caller about to hand the browser work (the next
   * render, a session's exit) never takes a dying browser for a live one. The first time it is
   * true the whole browser is stopped and `overBound` called, whichever noticed first.
   */
  tripped(): boolean;
  /** Stops polling (the browser ended). */
  stop(): void;
}

/** One browser's cgroup. */
export class BrowserCgroup {
  private readonly eventsFile: string;

  #removing: Promise<void> | undefined;

  constructor(
    readonly path: string,
    private readonly version: 'v1' | 'v2',
    private readonly removed: () => void = () => undefined,
  ) {
    this.eventsFile = join(path, version === 'v2' ? 'memory.events' : 'memory.oom_control');
  }

  /** The file a process writes its pid to, to join (the launcher does, before exec). */
  get procsFile(): string {
    return join(this.path, 'cgroup.procs');
  }

  /**
   * How many times the kernel killed a process here for want of memory. The cgroup is made for
   * one browser, so any kill at all is that browser's. The kernel counts a kill when it picks its
   * victim, before the victim dies: by the time the browser reports a crashed page, it shows.
   */
  oomKills(): number {
    try {
      const text = readFileSync(this.eventsFile, 'utf8');
      return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
    } catch {
      return 0;
    }
  }

  /**
   * Calls `overBound` once, after ending the whole browser, when the kernel first kills one of
   * its processes for memory. Polled, since neither version's notification reaches Node simply;
   * and `tripped()` reads the count on demand between polls.
   */
  watch(overBound: () => void, everyMs = 250): MemoryWatch {
    let tripped = false;
    const check = (): boolean => {
      if (tripped || this.oomKills() === 0) return tripped;
      tripped = true;
      clearInterval(timer);
      this.killAll();
      overBound();
      return true;
    };
    const timer = setInterval(check, everyMs);
    timer.unref();
    return {
      tripped: check,
      stop: () => {
        clearInterval(timer);
      },
    };
  }

  /** The pids in the cgroup; none once it is gone. */
  private pids(): number[] {
    try {
      return readFileSync(this.procsFile, 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  /** Kills every process in the cgroup: the browser ends whole, not with a page missing. */
  killAll(): void {
    if (this.version === 'v2' && existsSync(join(this.path, 'cgroup.kill'))) {
      try {
        writeFileSync(join(this.path, 'cgroup.kill'), '1');
        return;
      } catch {
        // Removed meanwhile, or the kernel refused: one by one, below.
      }
    }
    for (const pid of this.pids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  }

  /**
   * Removes the cgroup once the browser has ended: its last processes may outlive the browser's
   * pipe by a moment (a renderer the kernel is still tearing down), and a cgroup with a process
   * cannot be removed, so any left are killed and waited for, up to `withinMs`. A cgroup still
   * busy after that is left for the next start's sweep.
   */
  remove(withinMs = 5000): Promise<void> {
    this.#removing ??= this.#remove(withinMs).finally(this.removed);
    return this.#removing;
  }

  async #remove(withinMs: number): Promise<void> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      try {
        rmdirSync(this.path);
        return;
      } catch (err) {
        // Gone already (ENOENT), or busy past the deadline: nothing more to do here.
        if ((err as NodeJS.ErrnoException).code !== 'EBUSY' || Date.now() > deadline) return;
      }
      this.killAll();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export class BrowserMemory {
  private next = 0;
  /** Browser cgroups not yet removed, so that close() can wait for them. */
  private readonly live = new Set<BrowserCgroup>();

  private constructor(
    readonly status: MemoryBoundStatus,
    /** The service's folder of browser cgroups, when enforced. */
    private readonly parent: string | undefined,
    private readonly version: 'v1' | 'v2' | undefined,
  ) {}

  /**
   * Decides once, at start: a cgroup folder of the service's own under its memory cgroup, or why
   * there is none. `bytes` undefined means BROWSER_MAX_MEMORY=off.
   */
  static detect(
    bytes: number | undefined,
    options: { switchesUser: boolean; root?: string },
  ): BrowserMemory {
    const found = findHierarchy(options.root ?? '/sys/fs/cgroup');
    const off = (reason: string) => {
      const shared = typeof found === 'string' ? undefined : ownLimit(found);
      const status = { enforced: false as const, reason };
      return new BrowserMemory(
        shared === undefined ? status : { ...status, sharedBytes: shared },
        undefined,
        undefined,
      );
    };
    if (bytes === undefined) return off('BROWSER_MAX_MEMORY=off');
    // Only the launcher that switches uid (run as root) joins the cgroup before exec.
    if (!options.switchesUser)
      return off('browsers run as the service user (not root, or BROWSER_UIDS=off)');
    if (typeof found === 'string') return off(found);
    // The pid, so that a later start can tell a dead service's folder; and a suffix, since one
    // process may hold several services (tests do).
    const parent = join(
      found.own,
      `havn-render-${String(process.pid)}-${randomBytes(4).toString('hex')}`,
    );
    try {
      sweepStale(found.own);
      mkdirSync(parent);
      if (found.version === 'v2') {
        // Children of `parent` get the memory controller; `own` must hand it down first.
        writeFileSync(join(found.own, 'cgroup.subtree_control'), '+memory');
        writeFileSync(join(parent, 'cgroup.subtree_control'), '+memory');
      }
    } catch (err) {
      try {
        rmdirSync(parent);
      } catch {
        // Never made.
      }
      return off(`cannot make a memory cgroup under ${found.own}: ${(err as Error).message}`);
    }
    return new BrowserMemory(
      { enforced: true, cgroup: found.version, bytes },
      parent,
      found.version,
    );
  }

  /** A fresh cgroup bounded to BROWSER_MAX_MEMORY, or undefined when bounds are not enforced. */
  create(): BrowserCgroup | undefined {
    if (!this.status.enforced || this.parent === undefined || this.version === undefined) {
      return undefined;
    }
    const path = join(this.parent, `browser-${String(++this.next)}`);
    mkdirSync(path);
    const bytes = String(this.status.bytes);
    if (this.version === 'v2') {
      writeFileSync(join(path, 'memory.max'), bytes);
      // Without swap accounting the file is absent; with it, swap may not stretch the bound.
      const swap = join(path, 'memory.swap.max');
      if (existsSync(swap)) writeFileSync(swap, '0');
    } else {
      writeFileSync(join(path, 'memory.limit_in_bytes'), bytes);
      // With swap accounting, swap counts against the bound too (the file is absent without it).
      const memsw = join(path, 'memory.memsw.limit_in_bytes');
      if (existsSync(memsw)) writeFileSync(memsw, bytes);
    }
    const cgroup = new BrowserCgroup(path, this.version, () => this.live.delete(cgroup));
    this.live.add(cgroup);
    return cgroup;
  }

  /** Removes the service's folder at close, once every browser's cgroup is removed. */
  async close(): Promise<void> {
    if (this.parent === undefined) return;
    await Promise.all([...this.live].map((cgroup) => cgroup.remove()));
    try {
      rmdirSync(this.parent);
    } catch {
      // A browser cgroup still busy: the next start's sweep removes it.
    }
  }
}
