// `havn login --azure-cli`: tokens from an installed Azure CLI, through
// `az account get-access-token --resource <api_url>` (docs/cli.md#sign-in).
import { execFile } from 'node:child_process';
import { CliError } from '../errors.js';

export interface AzureCliToken {
  readonly accessToken: string;
  readonly expiresOn: number | null;
}

export async function azureCliToken(apiUrl: string, tenant?: string): Promise<AzureCliToken> {
  const args = ['account', 'get-access-token', '--resource', apiUrl.replace(/\/+$/, '')];
  if (tenant !== undefined) args.push('--tenant', tenant);
  args.push('--output', 'json');
  const stdout = await new Promise<string>((resolve, reject) => {
    // On Windows `az` is a batch file, which only a shell can start.
    const windows = process.platform === 'win32';
    execFile(
      windows ? 'az.cmd' : 'az',
      args,
      { shell: windows, timeout: 60_000, maxBuffer: 1 << 20 },
      (error, out, err) => {
        if (!error) {
          resolve(out);
          return;
        }
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(
            new CliError(
              "The Azure CLI ('az') was not found on PATH. Install it, or sign in with 'havn login' (device code) or 'havn login --with-token'.",
            ),
          );
          return;
        }
        const said = err.trim().split('\n').slice(-3).join(' ').trim();
        reject(
          new CliError(
            `'az account get-access-token' failed${said ? `: ${said}` : ''}.\nRun 'az login' first, then 'havn login --azure-cli'.`,
          ),
        );
      },
    );
  });
  let parsed: { accessToken?: unknown; expires_on?: unknown; expiresOn?: unknown };
  try {
    parsed = JSON.parse(stdout) as typeof parsed;
  } catch {
    throw new CliError("'az account get-access-token' printed something that is not JSON.");
  }
  if (typeof parsed.accessToken !== 'string' || parsed.accessToken === '') {
    throw new CliError("'az account get-access-token' returned no accessToken.");
  }
  return { accessToken: parsed.accessToken, expiresOn: expiryOf(parsed) };
}

// Newer az prints `expires_on` (POSIX seconds); older ones only `expiresOn`, local time.
function expiryOf(parsed: { expires_on?: unknown; expiresOn?: unknown }): number | null {
  const seconds = Number(parsed.expires_on);
  if (parsed.expires_on !== undefined && Number.isFinite(seconds)) return seconds * 1000;
  if (typeof parsed.expiresOn === 'string') {
    const local = Date.parse(parsed.expiresOn.replace(' ', 'T'));
    if (!Number.isNaN(local)) return local;
  }
  return null;
}
