// The access token for a query: the stored one while it is fresh; otherwise a silent renewal
// (MSAL refresh token, or `az` again); otherwise "Not authenticated" (docs/cli.md#sign-in). An
// expired stored token counts as no token.
import { loadCredential, saveCredential, type StoredCredential } from '../config/credentials.js';
import type { CliContext } from '../context.js';
import { CliError, NOT_AUTHENTICATED } from '../errors.js';
import { REFRESH_MARGIN_MS } from './defaults.js';

export async function accessTokenFor(ctx: CliContext, apiUrl: string): Promise<string> {
  const credential = await loadCredential(ctx.configDir);
  if (!credential) throw new CliError(NOT_AUTHENTICATED);
  // A token is for one audience; after `configure --api-url` an old token is for another API.
  if (!sameApi(credential.apiUrl, apiUrl)) {
    throw new CliError(
      `${NOT_AUTHENTICATED}\nThe stored sign-in is for ${credential.apiUrl}, not ${apiUrl}.`,
    );
  }
  const now = ctx.now();
  const margin = credential.kind === 'token' ? 0 : REFRESH_MARGIN_MS;
  if (credential.expiresOn === null || credential.expiresOn - margin > now) {
    return credential.accessToken;
  }
  if (credential.kind === 'token') {
    throw new CliError(
      `${NOT_AUTHENTICATED}\nThe stored token expired at ${new Date(credential.expiresOn).toISOString()}.`,
    );
  }
  let renewed: StoredCredential;
  try {
    renewed = await renew(credential, ctx.configDir);
  } catch (error) {
    // Renewal starts a few minutes early; until the token really expires, it still works.
    if (credential.expiresOn > now) return credential.accessToken;
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliError(
      `${NOT_AUTHENTICATED}\nThe stored sign-in could not be renewed (${renewalSource(credential)}): ${reason}`,
    );
  }
  await saveCredential(ctx.configDir, renewed);
  return renewed.accessToken;
}

async function renew(
  credential: Exclude<StoredCredential, { kind: 'token' }>,
  configDir: string,
): Promise<StoredCredential> {
  if (credential.kind === 'azure-cli') {
    const { azureCliToken } = await import('./azure-cli.js');
    const token = await azureCliToken(credential.apiUrl, credential.tenant);
    return { ...credential, ...token };
  }
  const { silentRefresh } = await import('./msal-session.js');
  const token = await silentRefresh(
    { configDir, clientId: credential.clientId, authority: credential.authority },
    credential.apiUrl,
    credential.homeAccountId,
  );
  return { ...credential, ...token };
}

/** Where a renewal goes, named in its error: the identity provider's host, or `az`. */
function renewalSource(credential: Exclude<StoredCredential, { kind: 'token' }>): string {
  return credential.kind === 'azure-cli' ? 'az' : new URL(credential.authority).host;
}

function sameApi(a: string, b: string): boolean {
  return a.replace(/\/+$/, '').toLowerCase() === b.replace(/\/+$/, '').toLowerCase();
}
