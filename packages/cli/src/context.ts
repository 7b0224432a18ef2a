// What every command receives: the resolved environment and the process's streams, passed down
// as arguments (no module singletons) so tests and main.ts wire them the same way.

export interface TextSink {
  write(text: string): unknown;
}

export interface CliContext {
  /** Directory holding config.json and the credential files (docs/cli.md#where-files-live). */
  readonly configDir: string;
  /** Colour is on only for a TTY and never with NO_COLOR (https://no-color.org). */
  readonly color: boolean;
  /** The profile HAVN_PROFILE names; --profile wins over it (docs/cli.md#profiles). */
  readonly profile: string | undefined;
  readonly stdout: TextSink;
  /** The terminal's width when stdout is a terminal; undefined for a pipe or a file. */
  readonly columns: number | undefined;
  readonly stderr: TextSink;
  // A function: touching process.stdin creates the stream, which only `login --with-token` needs.
  readonly stdin: () => NodeJS.ReadableStream;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /**
   * A signal aborted by Ctrl-C (SIGINT). The handler is installed on the first call only, so a
   * command that never asks keeps the default: Ctrl-C ends it at once.
   */
  readonly interrupted: () => AbortSignal;
}
