import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { linkCli, missingDebianPackages, SYSTEM_PACKAGES, TEST_PACKAGES } from './setup.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('setup', () => {
  it('asks dpkg which packages are missing', () => {
    // dpkg itself is always installed on Debian; a made-up name never is.
    expect(missingDebianPackages(['dpkg', 'havn-no-such-package'])).toEqual([
      'havn-no-such-package',
    ]);
  });

  it('leaves nothing the services and the tests need uninstalled after setup --test ran', () => {
    expect(missingDebianPackages([...SYSTEM_PACKAGES, ...TEST_PACKAGES])).toEqual([]);
  });

  it('puts havn on PATH: node_modules/.bin/havn runs the built CLI', () => {
    const link = linkCli();
    expect(link).toBe(join(root, 'node_modules', '.bin', 'havn'));
    expect(realpathSync(link)).toBe(realpathSync(join(root, 'packages/cli/dist/main.js')));
    const { version } = JSON.parse(
      readFileSync(join(root, 'packages/cli/package.json'), 'utf8'),
    ) as {
      version: string;
    };
    // Found by name through PATH, the way npm scripts and a shell with node_modules/.bin find it.
    const out = execFileSync('havn', ['--version'], {
      encoding: 'utf8',
      env: {
        ...process.env,
        PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
      },
    });
    expect(out.trim()).toBe(version);
  });

  it('replaces a stale havn link and leaves a correct one alone', () => {
    const base = mkdtempSync(join(tmpdir(), 'havn-link-'));
    try {
      mkdirSync(join(base, 'packages/cli/dist'), { recursive: true });
      writeFileSync(join(base, 'packages/cli/dist/main.js'), '');
      mkdirSync(join(base, 'node_modules/.bin'), { recursive: true });
      writeFileSync(join(base, 'node_modules/.bin/havn'), 'stale');
      const link = linkCli(base);
      expect(realpathSync(link)).toBe(realpathSync(join(base, 'packages/cli/dist/main.js')));
      expect(linkCli(base)).toBe(link);
      expect(realpathSync(link)).toBe(realpathSync(join(base, 'packages/cli/dist/main.js')));
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
