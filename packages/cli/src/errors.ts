// The CLI's error catalogue. main.ts is the one place that turns these into exit codes
// (0-decisions §3: 0 success, 1 runtime failure, 2 usage error).

/** A failure the user can act on; `message` is printed as is, never with a stack trace. */
export class CliError extends Error {
  readonly exitCode: 1 | 2;
  constructor(message: string, exitCode: 1 | 2 = 1) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** Bad command-line input: exit code 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
    this.name = 'UsageError';
  }
}

// spec 3 §7, with <configure_command> and <sign_in_command> as 0-decisions §3 names them.
export const NOT_CONFIGURED =
  'Telemetry workspace is not configured.\nRun havn configure telemetry to configure.';
export const NOT_AUTHENTICATED = "Not authenticated. Run 'havn login' to sign in.";
