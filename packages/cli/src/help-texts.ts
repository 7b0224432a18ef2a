// The help of every command, as commander prints it for `havn <command…> --help`, keyed by the
// command path ('' for `havn` itself). build.mjs writes it to dist/help.json, so `--help` is
// printed without loading commander (fast-path.ts; bench/cli.ts measures `havn render --help`),
// and a test checks the file against commander's own output.
import type { Command } from 'commander';

/** `build` must make a program whose help output goes to `capture`. */
export function helpTexts(
  build: (capture: (text: string) => void) => Command,
): Record<string, string> {
  let out = '';
  const program = build((text) => {
    out += text;
  });
  const texts: Record<string, string> = {};
  const walk = (command: Command, path: readonly string[]) => {
    out = '';
    command.outputHelp();
    texts[path.join(' ')] = out;
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return texts;
}
