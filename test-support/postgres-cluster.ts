// A throwaway PostgreSQL cluster for tests, benchmarks and the two-instance script: initdb in a
// temp dir, started with pg_ctl on a free loopback port, fsync and synchronous_commit on (the
// durability under test is the real one), stopped and removed at the end.
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './ports.js';

export interface PostgresCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres, the superuser on the maintenance database. */
  url: string;
  port: number;
  /** The database `name` on this cluster. */
  urlOf(name: string): string;
  /**
   * `pg_ctl restart -m fast`: every connection is dropped (57P01), the server is down for a moment
   * and back on the same port. Asynchronous, so a test keeps serving its clients meanwhile.
   */
  restart(): Promise<void>;
  stop(): void;
}

/**
 * Where initdb and pg_ctl are: Debian keeps them in /usr/lib/postgresql/<version>/bin, off PATH
 * (the newest version there wins); elsewhere they are on PATH.
 */
export function postgresBinDir(): string {
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((v) => /^\d+(\.\d+)?$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const v of versions) {
    const bin = join(debian, v, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  throw new Error(
    'PostgreSQL is not installed: no initdb and pg_ctl in /usr/lib/postgresql/<version>/bin or on ' +
      "PATH. `npm run setup` installs Debian's postgresql when run as root.",
  );
}

/** initdb refuses to run as root: as root, the cluster belongs to the `postgres` user. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(
      'running as root, and there is no `postgres` user to run PostgreSQL as (initdb refuses ' +
        "root); install Debian's postgresql, which creates it",
    );
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function run(file: string, args: string[], options: SpawnSyncOptions, what: string): void {
  const r = spawnSync(file, args, { encoding: 'utf8', timeout: 120_000, ...options });
  if (r.status !== 0) {
    const out = `${String(r.stdout)}${String(r.stderr)}`.trim();
    throw new Error(
      `PostgreSQL could not start: ${what} failed (${r.error?.message ?? `exit ${String(r.status)}`})${out ? `:\n${out}` : ''}`,
    );
  }
}

/** Starts a new cluster; throws with PostgreSQL's own reason when it cannot. */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'havn-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const options: SpawnSyncOptions = { cwd: dir, ...(user ?? {}) };
  try {
    // --no-sync only skips syncing the freshly made template files once; the server runs with
    // fsync on.
    run(
      join(bin, 'initdb'),
      ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'],
      options,
      'initdb',
    );
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const serverOptions = [
        `-p ${String(port)}`,
        `-k ${dir}`,
        '-c listen_addresses=127.0.0.1',
        '-c fsync=on',
        '-c synchronous_commit=on',
        '-c max_connections=300',
      ].join(' ');
      try {
        run(
          join(bin, 'pg_ctl'),
          ['-D', data, '-l', log, '-w', '-t', '60', '-o', serverOptions, 'start'],
          options,
          'pg_ctl start',
        );
        break;
      } catch (err) {
        // Another process may have taken the free port in between: try another, twice.
        if (attempt >= 3) {
          const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
          throw new Error(`${(err as Error).message}\n${tail}`, { cause: err });
        }
      }
    }
    const urlOf = (name: string) => `postgres://postgres@127.0.0.1:${String(port)}/${name}`;
    return {
      url: urlOf('postgres'),
      port,
      urlOf,
      restart: () =>
        new Promise((resolve, reject) => {
          const child = spawn(
            join(bin, 'pg_ctl'),
            ['-D', data, '-l', log, '-m', 'fast', '-w', 'restart'],
            {
              ...options,
              stdio: 'ignore',
            },
          );
          child.once('error', reject);
          child.once('exit', (code) => {
            if (code === 0) resolve();
            else reject(new Error(`pg_ctl restart exited ${String(code)}`));
          });
        }),
      stop: () => {
        spawnSync(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], {
          ...options,
          stdio: 'ignore',
        });
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
