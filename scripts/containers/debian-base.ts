import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  writeFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { cacheDir, podman, run } from './podman.js';

// The base image the Containerfile names, made on this machine (docs/deploy.md#how-the-images-are-tested).
// No image registry is reachable here, so `debian:trixie-slim` is made with debootstrap from the
// machine's own apt source and imported under that name: the real Containerfile builds unchanged.

export const BASE_IMAGE = 'docker.io/library/debian:trixie-slim';
const SUITE = 'trixie';
/** A cached root filesystem older than this is made again, so security updates reach the tests. */
const MAX_AGE_MS = 7 * 24 * 3600 * 1000;

/**
 * The Debian archive this machine installs from: the first `deb` source of the main archive
 * (not the security or updates suites) in /etc/apt/sources.list.d (deb822 or one-line) or
 * /etc/apt/sources.list. Never a host written here.
 */
export function debianMirror(): string {
  const files: string[] = [];
  const dir = '/etc/apt/sources.list.d';
  if (existsSync(dir)) {
    for (const f of readdirSync(dir).sort()) {
      if (f.endsWith('.sources') || f.endsWith('.list')) files.push(join(dir, f));
    }
  }
  if (existsSync('/etc/apt/sources.list')) files.push('/etc/apt/sources.list');
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const found = file.endsWith('.sources') ? fromDeb822(text) : fromOneLine(text);
    if (found) return found;
  }
  throw new Error('no Debian archive found in /etc/apt/sources.list.d or /etc/apt/sources.list');
}

const mainArchive = (uri: string, suite: string) =>
  !/security/.test(uri) &&
  !/-(security|updates|backports)$/.test(suite) &&
  /\/debian\/?$/.test(uri);

function fromDeb822(text: string): string | undefined {
  for (const stanza of text.split(/\n\s*\n/)) {
    const field = (name: string) =>
      new RegExp(`^${name}:\\s*(.+)$`, 'mi').exec(stanza)?.[1]?.trim().split(/\s+/) ?? [];
    if (!field('Types').includes('deb') || /^Enabled:\s*no/im.test(stanza)) continue;
    const suite = field('Suites')[0] ?? '';
    const uri = field('URIs').find((u) => mainArchive(u, suite));
    if (uri) return uri;
  }
  return undefined;
}

function fromOneLine(text: string): string | undefined {
  for (const line of text.split('\n')) {
    const m = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(line.trim());
    if (m?.[1] && m[2] && mainArchive(m[1], m[2])) return m[1];
  }
  return undefined;
}

/**
 * Where debootstrap finds its suite scripts. Debian 12's debootstrap (1.0.128+nmu2+deb12u2 on
 * this machine) has a `trixie` script; an older one without it gets a private copy of its
 * scripts folder with `trixie` pointing at `sid` (the two share one script upstream), rather
 * than a change to the machine's own debootstrap.
 */
function debootstrapDir(): string | undefined {
  const system = '/usr/share/debootstrap';
  if (existsSync(join(system, 'scripts', SUITE))) return undefined;
  const copy = mkdtempSync(join(cacheDir, 'debootstrap-'));
  const r = spawnSync('sh', [
    '-c',
    'cp -a "$1/." "$2/" && ln -sf sid "$2/scripts/$3"',
    'sh',
    system,
    copy,
    SUITE,
  ]);
  if (r.status !== 0) throw new Error(`cannot copy ${system} to ${copy}`);
  return copy;
}

/**
 * What the official debian:*-slim images leave out of a minbase, so image sizes measured here
 * match theirs: manuals, docs and foreign locales (kept out of later packages too, through the
 * same dpkg path-excludes), and the apt lists, which every build fetches again.
 */
function slim(target: string): void {
  const excludes = [
    '/usr/share/doc/*',
    '/usr/share/man/*',
    '/usr/share/info/*',
    '/usr/share/locale/*',
    '/usr/share/groff/*',
    '/usr/share/linda/*',
    '/usr/share/lintian/*',
  ];
  for (const pattern of excludes) {
    const dir = join(target, pattern.slice(1, -2));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(
    join(target, 'etc', 'dpkg', 'dpkg.cfg.d', 'docker'),
    `${excludes.map((p) => `path-exclude ${p}`).join('\n')}\npath-include /usr/share/doc/*/copyright\n`,
  );
  rmSync(join(target, 'var', 'lib', 'apt', 'lists'), { recursive: true, force: true });
  rmSync(join(target, 'var', 'cache', 'apt'), { recursive: true, force: true });
  mkdirSync(join(target, 'var', 'lib', 'apt', 'lists', 'partial'), { recursive: true });
  mkdirSync(join(target, 'var', 'cache', 'apt', 'archives', 'partial'), { recursive: true });
}

/** A trixie minbase tarball, made once and kept in the cache; its path. */
async function rootfsTarball(): Promise<string> {
  const tarball = join(cacheDir, `debian-${SUITE}-minbase.tar`);
  if (existsSync(tarball) && Date.now() - statSync(tarball).mtimeMs < MAX_AGE_MS) return tarball;
  const target = mkdtempSync(join(cacheDir, 'rootfs-'));
  try {
    const scripts = debootstrapDir();
    const env = { ...process.env, ...(scripts && { DEBOOTSTRAP_DIR: scripts }) };
    const boot = await run('debootstrap', ['--variant=minbase', SUITE, target, debianMirror()], {
      env,
      timeoutMs: 600_000,
    });
    if (boot.code !== 0)
      throw new Error(`debootstrap failed:\n${boot.stdout.slice(-4000)}\n${boot.stderr}`);
    slim(target);
    const partial = `${tarball}.partial`;
    const tar = await run('tar', ['-C', target, '--numeric-owner', '-cf', partial, '.'], { env });
    if (tar.code !== 0) throw new Error(`tar failed: ${tar.stderr}`);
    renameSync(partial, tarball);
    if (scripts) rmSync(scripts, { recursive: true, force: true });
    return tarball;
  } finally {
    rmSync(target, { recursive: true, force: true });
  }
}

/**
 * Makes sure `debian:trixie-slim` is in podman's storage: kept there between runs (podman's
 * storage persists on this machine), else imported from the cached or a fresh debootstrap.
 */
export async function ensureBaseImage(): Promise<void> {
  const exists = await run('podman', ['image', 'exists', BASE_IMAGE]);
  if (exists.code === 0) return;
  const tarball = await rootfsTarball();
  // An imported root filesystem has no configuration: give it the PATH and command the real
  // image has (podman kube play needs PATH set in the image).
  await podman(
    [
      'import',
      '--change',
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      '--change',
      'CMD ["bash"]',
      tarball,
      BASE_IMAGE,
    ],
    { timeoutMs: 300_000 },
  );
}
