// What every command receives: the resolved environment and the process's streams, passed down
// as arguments (no module singletons) so tests and main.ts wire them the same way.

export interface TextSink {
  write(text: string): unknown;
}

/** stdout for bytes too (`-o -`): a PNG is written as it is. */
export interface OutputSink extends TextSink {
  write(chunk: string | Uint8Array): unknown;
}

export interface CliContext {
  /** Directory holding config.json and the credential files (docs/cli.md#where-files-live). */
  readonly configDir: string;
  /** Colour is on only for a TTY and never with NO_COLOR (https://no-color.org). */
  readonly color: boolean;
  /** The profile HAVN_PROFILE names; --profile wins over it (docs/cli.md#profiles). */
  readonly profile: string | undefined;
  /** HAVN_RENDER_TOKEN and HAVN_FORMS_TOKEN (docs/cli.md#environment-variables). */
  readonly serviceTokens: Readonly<Partial<Record<'render' | 'forms', string>>>;
  readonly stdout: OutputSink;
  /** stdout as a stream, for a download piped through with backpressure (`-o -`). */
  readonly stdoutStream: NodeJS.WritableStream;
  /** Whether stdout is a terminal: binary output is refused there, text is made safe. */
  readonly stdoutIsTty: boolean;
  /** Whether stderr is a terminal: progress redraws one line there. */
  readonly stderrIsTty: boolean;
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
