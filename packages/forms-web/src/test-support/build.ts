// The tests drive the built bundles (dist/), exactly what the server serves; building first is a
// no-op when nothing changed (build.mjs is incremental).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const WEB_DIR = join(PACKAGE_DIR, 'dist');
/** Where the screenshot scripts write the pictures docs/forms-web.md shows. */
export const SCREENSHOT_DIR = join(PACKAGE_DIR, '..', '..', 'docs', 'screenshots');

export function ensureBuilt(): void {
  const r = spawnSync(process.execPath, [join(PACKAGE_DIR, 'build.mjs')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`forms-web build failed:\n${r.stderr}`);
}
