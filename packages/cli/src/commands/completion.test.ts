// The completion scripts, printed by the built binary: bash parses and loads them (bash -n, then
// complete -p), and completes commands and options from the command table.
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { havn, tempConfigDir } from '../test-support/run-havn.js';

let config: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  config = await tempConfigDir();
});
afterEach(async () => {
  await config.cleanup();
});

/** Runs `script` in bash with the completion loaded, and prints what completing `line` offers. */
function complete(file: string, line: string): string[] {
  const words = line.split(' ');
  const r = spawnSync(
    'bash',
    [
      '-c',
      `source "$1"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${String(words.length - 1)}; _havn; printf '%s\\n' "\${COMPREPLY[@]}"`,
      'bash',
      file,
    ],
    { encoding: 'utf8' },
  );
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe('havn completion', () => {
  it('bash: a script bash parses and loads, which completes commands and options', async () => {
    const r = await havn(['completion', 'bash'], { configDir: config.dir });
    expect(r.code).toBe(0);
    const file = join(config.dir, 'havn.bash');
    await writeFile(file, r.stdout);
    expect(spawnSync('bash', ['-n', file]).status).toBe(0);
    const loaded = spawnSync('bash', ['-c', 'source "$1" && complete -p havn', 'bash', file], {
      encoding: 'utf8',
    });
    expect(loaded.stdout.trim()).toBe('complete -o default -F _havn havn');
    expect(complete(file, 'havn ')).toEqual([
      'configure',
      'login',
      'logout',
      'otel',
      'render',
      'forms',
      'completion',
    ]);
    expect(complete(file, 'havn render s')).toEqual(['shot', 'session']);
    expect(complete(file, 'havn render shot page.html -o x.png --de')).toEqual(['--device']);
    expect(complete(file, 'havn forms definition ')).toEqual(['get', 'put']);
    expect(complete(file, 'havn configure r')).toEqual(['render']);
    expect(complete(file, 'havn otel t')).toEqual(['traces', 'trace']);
    // An option's value and a positional do not derail the command path.
    expect(complete(file, 'havn otel errors checkout --since 1h --work')).toEqual([
      '--workspace-id',
    ]);
    expect(complete(file, 'havn configure telemetry --wo')).toEqual(['--workspace-id']);
  });

  it('zsh and fish scripts; an unknown shell is a usage error', async () => {
    const zsh = await havn(['completion', 'zsh'], { configDir: config.dir });
    expect(zsh.code).toBe(0);
    expect(zsh.stdout).toMatch(/^#compdef havn\nautoload -U \+X bashcompinit && bashcompinit\n/);
    const fish = await havn(['completion', 'fish'], { configDir: config.dir });
    expect(fish.code).toBe(0);
    expect(fish.stdout).toContain(
      "complete -c havn -n '__fish_seen_subcommand_from otel' -a 'errors traces logs spans trace query'",
    );
    const bad = await havn(['completion', 'tcsh'], { configDir: config.dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("<shell> must be bash, zsh or fish; got 'tcsh'.\n");
  });
});
