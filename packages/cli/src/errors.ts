// The CLI's error catalogue. main.ts is the one place that turns these into exit codes
// (docs/cli.md#errors-and-exit-codes: 0 success, 1 runtime failure, 2 usage error).

/** A failure the user can act on; `message` is printed as is, never with a stack trace. */
export class CliError extends Error {
  readonly exitCode: 1 | 2;
  /** A failure that may pass by itself (network, throttling, 5xx): --follow retries it. */
  readonly transient: boolean;
  constructor(message: string, exitCode: 1 | 2 = 1, transient = false) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.transient = transient;
  }
}

/** Bad command-line input: exit code 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
    this.name = 'UsageError';
  }
}

/**
 * The "not configured" message (docs/cli.md#errors-and-exit-codes). Its configure command works
 * as printed once the placeholder is filled in, and names the profile when it is not the default.
 */
export function notConfigured(profile: string): string {
  const select = profile === 'default' ? '' : ` --profile ${profile}`;
  return `Telemetry workspace is not configured.\nRun havn configure telemetry${select} --workspace-id <workspace-id> to configure.\n(For an Application Insights resource that still answers the app query API: --app-id <application-id> instead.)`;
}

export const NOT_AUTHENTICATED = "Not authenticated. Run 'havn login' to sign in.";
