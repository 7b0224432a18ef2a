import { readdirSync, readFileSync } from 'node:fs';

// What one browser leaves on the machine, read from /proc: every process of a browser (the
// browser, its zygotes, renderers and utilities) inherits the HOME the service gave it, a folder
// of its own, so the processes of one browser are those whose environment carries that HOME.

function readProc(pid: number | string, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'latin1');
  } catch {
    return undefined; // Gone meanwhile, or not ours to read.
  }
}

/** The browser process's HOME and its --user-data-dir (Playwright's profile folder). */
export function browserFolders(pid: number): { home: string; profile: string } {
  const home = readProc(pid, 'environ')
    ?.split('\0')
    .find((v) => v.startsWith('HOME='))
    ?.slice('HOME='.length);
  const profile = readProc(pid, 'cmdline')
    ?.split('\0')
    .find((a) => a.startsWith('--user-data-dir='))
    ?.slice('--user-data-dir='.length);
  if (!home || !profile) throw new Error(`process ${pid} is not a running browser`);
  return { home, profile };
}

/** Live (not zombie) processes whose environment has HOME=`home`. */
export function processesWithHome(home: string): number[] {
  const wanted = `HOME=${home}`;
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      const state = /\) (\S)/.exec(readProc(pid, 'stat') ?? '')?.[1];
      if (state === undefined || state === 'Z') return false;
      return readProc(pid, 'environ')?.split('\0').includes(wanted) ?? false;
    })
    .map(Number);
}

/** Live processes whose HOME is `dir` or below it (every browser of a session folder's parent). */
export function processesWithHomeUnder(dir: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      const state = /\) (\S)/.exec(readProc(pid, 'stat') ?? '')?.[1];
      if (state === undefined || state === 'Z') return false;
      const home = readProc(pid, 'environ')
        ?.split('\0')
        .find((v) => v.startsWith('HOME='))
        ?.slice('HOME='.length);
      return home !== undefined && (home === dir || home.startsWith(`${dir}/`));
    })
    .map(Number);
}
