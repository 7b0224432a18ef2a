#!/usr/bin/env node
// `npm run setup`: install what is missing, then build. Idempotent and fast when nothing changed.
// Plain Node with no dependencies, because it runs before `npm ci` has filled node_modules.
//
//  1. Debian packages (Chromium, ffmpeg, fonts, PostgreSQL for the forms tests; with --test, as
//     `npm test` runs it, podman and the rest of the container tests' tools) through apt when
//     absent and we are root; otherwise a message naming the packages and the variables that
//     point elsewhere.
//  2. npm dependencies from the lockfile, re-installed only when a manifest or the lockfile changed.
//  3. The build (tsc -b and the web assets), incremental.
//  4. The `havn` command linked into node_modules/.bin (docs/setup.md#the-havn-command).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const say = (msg) => console.log(`havn setup: ${msg}`);

/** Debian packages the services need at run time (docs/setup.md explains each). */
export const SYSTEM_PACKAGES = [
  'chromium-headless-shell',
  'chromium',
  'ffmpeg',
  'fonts-liberation',
  'fonts-noto-color-emoji',
  'fonts-noto-cjk',
  'postgresql',
  'qpdf',
  'poppler-utils',
  // The load balancer in front of two render instances (render's cluster tests and
  // scripts/render-two-instances.ts).
  'nginx',
];

/**
 * Debian packages only `npm test` needs (`setup.mjs --test`): podman and what the container tests
 * drive with it, and systemd-analyze for the units (docs/deploy.md#how-the-images-are-tested).
 */
export const TEST_PACKAGES = [
  'podman',
  'runc',
  'catatonit',
  'podman-compose',
  // Names between containers of one compose network (the cluster profile's nginx finds its
  // instances by service name); podman 4.3's CNI networks resolve none without it.
  'golang-github-containernetworking-plugin-dnsname',
  'debootstrap',
  'systemd',
];

/** Which of `packages` dpkg does not list as installed; null where there is no dpkg. */
export function missingDebianPackages(packages) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Package} ${db:Status-Status}\\n', ...packages], {
    encoding: 'utf8',
  });
  if (r.error) return null;
  const installed = new Set(
    r.stdout
      .split('\n')
      .filter((line) => line.endsWith(' installed'))
      .map((line) => line.split(' ')[0]),
  );
  return packages.filter((p) => !installed.has(p));
}

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...options });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
  }
}

function installSystemPackages(packages) {
  const missing = missingDebianPackages(packages);
  if (missing === null) {
    say('not a Debian system; make sure Chromium and ffmpeg are installed and set');
    say('CHROMIUM_PATH and FFMPEG_PATH if they are not on the usual paths.');
    return;
  }
  if (missing.length === 0) return;
  const isRoot = process.getuid?.() === 0;
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!isRoot || !hasApt) {
    say(`missing Debian packages: ${missing.join(' ')}`);
    say(`install them with: sudo apt-get install ${missing.join(' ')}`);
    say('or point CHROMIUM_PATH and FFMPEG_PATH at a browser and an ffmpeg you have.');
    return;
  }
  say(`installing ${missing.join(' ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = ['-o', 'DPkg::Lock::Timeout=300', '-y', '-q'];
  run('apt-get', [...apt, 'update'], { env });
  run('apt-get', [...apt, 'install', '--no-install-recommends', ...missing], { env });
}

function lockDigest() {
  const h = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json'])
    h.update(readFileSync(join(root, file)));
  const workspaces = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces;
  for (const ws of workspaces) h.update(readFileSync(join(root, ws, 'package.json')));
  h.update(process.version);
  return h.digest('hex');
}

function installNpmPackages() {
  const stamp = join(root, 'node_modules', '.havn-setup');
  const digest = lockDigest();
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  say('installing npm dependencies (npm ci)');
  // better-sqlite3's prebuilt download is unreachable on closed networks; build it from source
  // against the local Node headers (python3, make and g++ suffice).
  const env = { ...process.env, npm_config_build_from_source: 'true' };
  if (!env.npm_config_nodedir && existsSync('/usr/include/node/node_api.h')) {
    env.npm_config_nodedir = '/usr';
  }
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { env });
  writeFileSync(stamp, digest);
}

function build() {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
}

/**
 * Links `node_modules/.bin/havn` to the built CLI, relative so the tree can move, and leaves a
 * correct link alone. It runs after the build: `npm ci` links workspace bins before the CLI's
 * dist/ exists on a fresh clone, so the link npm would make is missing then.
 * Returns the link's path.
 */
export function linkCli(base = root) {
  const binDir = join(base, 'node_modules', '.bin');
  const link = join(binDir, 'havn');
  const target = relative(binDir, join(base, 'packages', 'cli', 'dist', 'main.js'));
  let current;
  try {
    current = readlinkSync(link);
  } catch {
    current = undefined;
  }
  if (current === target) return link;
  mkdirSync(binDir, { recursive: true });
  rmSync(link, { force: true });
  symlinkSync(target, link);
  return link;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    installSystemPackages(
      process.argv.includes('--test') ? [...SYSTEM_PACKAGES, ...TEST_PACKAGES] : SYSTEM_PACKAGES,
    );
    installNpmPackages();
    build();
    linkCli();
  } catch (err) {
    say(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}
