// `havn login` (docs/cli.md#sign-in): device code (MSAL), --with-token (standard input, as
// `gh auth login --with-token`), or --azure-cli (`az account get-access-token`). The token is
// for the audience {api_url}/.default of the configured API.
import type { Command } from 'commander';
import { DEFAULT_AUTHORITY_HOST, DEFAULT_CLIENT_ID, DEFAULT_TENANT } from '../auth/defaults.js';
import { jwtExpiry } from '../auth/jwt-expiry.js';
import { saveCredential, type StoredCredential } from '../config/credentials.js';
import { tokenFromStdin } from '../config/stdin-token.js';
import {
  DEFAULT_API_URL,
  DEFAULT_PROFILE,
  loadTelemetryConfig,
  parseProfileName,
} from '../config/telemetry-config.js';
import type { CliContext } from '../context.js';
import { CliError, UsageError } from '../errors.js';

interface LoginOptions {
  readonly withToken?: boolean;
  readonly azureCli?: boolean;
  readonly tenant?: string;
  readonly clientId?: string;
  readonly authority?: string;
  readonly profile?: string;
}

export function registerLogin(program: Command, ctx: CliContext): void {
  program
    .command('login')
    .description('Sign in for the telemetry query API.')
    .option('--with-token', 'read an access token from standard input')
    .option('--azure-cli', "take tokens from the Azure CLI ('az account get-access-token')")
    .option('--tenant <TENANT>', `directory (tenant) id or domain (default ${DEFAULT_TENANT})`)
    .option('--client-id <ID>', 'public client application id for the device-code flow')
    .option(
      '--authority <URL>',
      `identity provider authority URL (default ${DEFAULT_AUTHORITY_HOST}/<tenant>)`,
    )
    .option('--profile <NAME>', "sign in for this profile's API URL (default: HAVN_PROFILE)")
    .addHelpText(
      'after',
      `
Examples:
  havn login                                   device code: open the page shown, enter the code
  havn login --tenant contoso.onmicrosoft.com
  az account get-access-token --resource https://api.applicationinsights.io \\
    --query accessToken -o tsv | havn login --with-token
  havn login --azure-cli                       reuse 'az login'; renewed through az

Tokens are stored in the configuration directory with mode 0600.`,
    )
    .action(async (options: LoginOptions) => {
      await login(ctx, options);
    });
}

async function login(ctx: CliContext, o: LoginOptions): Promise<void> {
  if (o.withToken === true && o.azureCli === true) {
    throw new UsageError('Use either --with-token or --azure-cli, not both.');
  }
  const profile = parseProfileName(o.profile ?? ctx.profile ?? DEFAULT_PROFILE);
  const config = await loadTelemetryConfig(ctx.configDir, profile);
  const apiUrl = config?.apiUrl ?? DEFAULT_API_URL;
  let credential: StoredCredential;
  if (o.withToken === true) {
    if (o.clientId !== undefined || o.authority !== undefined || o.tenant !== undefined) {
      throw new UsageError('--tenant, --client-id and --authority do not apply to --with-token.');
    }
    credential = await tokenCredential(ctx, apiUrl);
  } else if (o.azureCli === true) {
    if (o.clientId !== undefined || o.authority !== undefined) {
      throw new UsageError('--client-id and --authority do not apply to --azure-cli.');
    }
    const { azureCliToken } = await import('../auth/azure-cli.js');
    const token = await azureCliToken(apiUrl, o.tenant);
    credential = {
      kind: 'azure-cli',
      ...token,
      apiUrl,
      ...(o.tenant === undefined ? {} : { tenant: o.tenant }),
    };
  } else {
    credential = await deviceCode(ctx, o, apiUrl);
  }
  await saveCredential(ctx.configDir, credential);
  const expiry =
    credential.expiresOn === null
      ? ''
      : `; the token expires at ${new Date(credential.expiresOn).toISOString()}`;
  const renewal = credential.kind === 'token' ? '' : ' (renewed automatically)';
  ctx.stderr.write(`Signed in for ${apiUrl}${expiry}${renewal}.\n`);
}

async function tokenCredential(ctx: CliContext, apiUrl: string): Promise<StoredCredential> {
  const token = await tokenFromStdin(ctx, 'access token');
  const expiresOn = jwtExpiry(token);
  // An expired token counts as none, so storing one would only fail later.
  if (expiresOn !== null && expiresOn <= ctx.now()) {
    throw new CliError(
      `That token expired at ${new Date(expiresOn).toISOString()}; get a new one.`,
    );
  }
  return { kind: 'token', accessToken: token, expiresOn, apiUrl };
}

async function deviceCode(
  ctx: CliContext,
  o: LoginOptions,
  apiUrl: string,
): Promise<StoredCredential> {
  if (o.authority !== undefined && o.tenant !== undefined) {
    throw new UsageError('Give the tenant inside --authority, or use --tenant alone.');
  }
  const authority = (
    o.authority ?? `${DEFAULT_AUTHORITY_HOST}/${o.tenant ?? DEFAULT_TENANT}`
  ).replace(/\/+$/, '');
  if (!/^https:\/\/[^/]+\/[^/?#]+$/.test(authority)) {
    throw new UsageError(
      `--authority must be an https URL with a tenant, such as ${DEFAULT_AUTHORITY_HOST}/${DEFAULT_TENANT}; got '${authority}'.`,
    );
  }
  const clientId = o.clientId ?? DEFAULT_CLIENT_ID;
  // MSAL is loaded only here and for a silent refresh (docs/cli.md#start-up-time).
  const { deviceCodeSignIn } = await import('../auth/msal-session.js');
  try {
    const signedIn = await deviceCodeSignIn(
      { configDir: ctx.configDir, clientId, authority },
      apiUrl,
      (m) => ctx.stderr.write(`${m}\n`),
    );
    return { kind: 'device-code', ...signedIn, apiUrl, clientId, authority };
  } catch (error) {
    if (error instanceof CliError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    // Name the host: "network_error: fetch failed" alone does not say what was unreachable.
    throw new CliError(`Sign-in at ${new URL(authority).host} failed: ${reason}`);
  }
}
