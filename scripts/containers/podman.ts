import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Podman as the container tests and the containers benchmark drive it on this machine
// (docs/deploy.md#how-the-images-are-tested). Everything here works around the test machine, never
// around what users get: the Containerfile, compose.yaml and the manifests stay standard.
//
// - runc, not crun: crun refuses this machine's hybrid cgroups.
// - A CONTAINERS_CONF with `default_ulimits = []`: podman's default ulimits exceed the machine's
//   hard limits.
// - `podman build --format docker`: podman 4.3 keeps HEALTHCHECK only in the docker format.
// - `--network host` for builds: that is how a build reaches the apt source and the npm registry.

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where downloads worth keeping between runs live (the debootstrap tarball). */
export const cacheDir = join(
  process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
  'havn-containers',
);

/** Havn's images, by target of the root Containerfile. */
export const IMAGES = {
  render: 'localhost/havn-render:latest',
  forms: 'localhost/havn-forms:latest',
} as const;

/** The cluster profile's PostgreSQL and nginx, by target of deploy/compose/Containerfile. */
export const CLUSTER_IMAGES = {
  postgres: 'localhost/havn-postgres:latest',
  nginx: 'localhost/havn-nginx:latest',
} as const;

type Target = keyof typeof IMAGES | keyof typeof CLUSTER_IMAGES;

function containersConf(): string {
  mkdirSync(cacheDir, { recursive: true });
  const file = join(cacheDir, 'containers.conf');
  writeFileSync(
    file,
    '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n',
  );
  return file;
}

let conf: string | undefined;

/** The environment every podman and podman-compose call runs with. */
export function podmanEnv(): NodeJS.ProcessEnv {
  conf ??= containersConf();
  return { ...process.env, CONTAINERS_CONF: conf };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end without throwing; output is kept (up to the last 1 MiB of each). */
export function run(
  cmd: string,
  args: readonly string[],
  options: { input?: string; timeoutMs?: number; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: options.cwd ?? root,
      env: options.env ?? podmanEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const keep = (s: string) => (s.length > 1 << 20 ? s.slice(-(1 << 20)) : s);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = keep(stdout + d)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = keep(stderr + d)));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 600_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    // A command may exit without reading its input; the broken pipe is no error of the run.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Runs podman; throws with its output when it fails. */
export async function podman(
  args: readonly string[],
  options: { input?: string; timeoutMs?: number } = {},
): Promise<string> {
  const r = await run('podman', args, options);
  if (r.code !== 0) {
    throw new Error(`podman ${args.join(' ')} exited ${r.code}\n${r.stderr}\n${r.stdout}`);
  }
  return r.stdout.trim();
}

/** Whether a command is on PATH. */
export function have(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

const SYSTEM_CA = '/etc/ssl/certs/ca-certificates.crt';

/** Builds one image (a target of its Containerfile), reusing podman's layer cache. */
export async function buildImage(target: Target): Promise<void> {
  const [context, tag] =
    target in CLUSTER_IMAGES
      ? [join('deploy', 'compose'), CLUSTER_IMAGES[target as keyof typeof CLUSTER_IMAGES]]
      : ['.', IMAGES[target as keyof typeof IMAGES]];
  await podman(
    [
      'build',
      '--format',
      'docker',
      '--network',
      'host',
      '--layers',
      // This machine reaches npm through a TLS-intercepting proxy whose CA is in the system
      // bundle; the Containerfile takes such a CA as a build secret (docs/deploy.md#the-images).
      ...(existsSync(SYSTEM_CA) ? ['--secret', `id=build_ca,src=${SYSTEM_CA}`] : []),
      '-f',
      join(context, 'Containerfile'),
      '--target',
      target,
      '-t',
      tag,
      context,
    ],
    { timeoutMs: 2_400_000 },
  );
}
