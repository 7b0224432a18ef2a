// The CLI's version, from its package.json. Found by walking up from this file, because the file
// runs both from dist/ (tsc) and from dist/chunks/ (the bundle, see build.mjs).
import { readFileSync } from 'node:fs';

export function packageVersion(from: string = import.meta.url): string {
  for (let up = '../'; up.length < 16; up += '../') {
    try {
      const text = readFileSync(new URL(`${up}package.json`, from), 'utf8');
      const pkg = JSON.parse(text) as { name?: string; version?: string };
      if (pkg.name === '@havn/cli' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not at this level; keep walking up
    }
  }
  return 'unknown';
}
