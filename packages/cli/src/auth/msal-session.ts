// Device-code sign-in and silent refresh with MSAL. Only `havn login` and a query whose stored
// device-code token needs renewing import this module: MSAL is large, and a query with a fresh
// token must stay cheap to start (docs/cli.md#start-up-time).
import {
  PublicClientApplication,
  type AuthenticationResult,
  type ICachePlugin,
  type TokenCacheContext,
} from '@azure/msal-node';
import { msalCachePath } from '../config/credentials.js';
import { readOptionalFile, writeFileAtomic } from '../config/private-file.js';
import { DEFAULT_AUTHORITY_HOST, scopeFor } from './defaults.js';

export interface MsalTarget {
  readonly configDir: string;
  readonly clientId: string;
  /** e.g. https://login.microsoftonline.com/organizations */
  readonly authority: string;
}

export interface SignedIn {
  readonly accessToken: string;
  readonly expiresOn: number | null;
  readonly homeAccountId: string;
  readonly username?: string;
}

/** MSAL's token cache, persisted in <configDir>/msal-cache.json with mode 0600. */
function filePlugin(configDir: string): ICachePlugin {
  const path = msalCachePath(configDir);
  return {
    async beforeCacheAccess(context: TokenCacheContext): Promise<void> {
      const text = await readOptionalFile(path);
      if (text !== undefined) context.tokenCache.deserialize(text);
    },
    async afterCacheAccess(context: TokenCacheContext): Promise<void> {
      if (context.cacheHasChanged) {
        await writeFileAtomic(path, context.tokenCache.serialize(), 0o600);
      }
    },
  };
}

function application(target: MsalTarget): PublicClientApplication {
  const host = new URL(target.authority).host;
  const microsoft = new URL(DEFAULT_AUTHORITY_HOST).host;
  return new PublicClientApplication({
    auth: {
      clientId: target.clientId,
      authority: target.authority,
      // Another identity provider (a sovereign cloud, a test authority) is trusted because the
      // user named it with --authority; Microsoft's own host keeps MSAL's instance discovery.
      ...(host === microsoft ? {} : { knownAuthorities: [host] }),
    },
    cache: { cachePlugin: filePlugin(target.configDir) },
  });
}

function signedIn(result: AuthenticationResult | null): SignedIn {
  if (!result?.accessToken || !result.account) {
    throw new Error('the identity provider returned no access token');
  }
  return {
    accessToken: result.accessToken,
    expiresOn: result.expiresOn ? result.expiresOn.getTime() : null,
    homeAccountId: result.account.homeAccountId,
    ...(result.account.username ? { username: result.account.username } : {}),
  };
}

/** Runs the device-code flow; `onCode` shows the user where to go and which code to enter. */
export async function deviceCodeSignIn(
  target: MsalTarget,
  apiUrl: string,
  onCode: (message: string) => void,
): Promise<SignedIn> {
  const app = application(target);
  const result = await app.acquireTokenByDeviceCode({
    scopes: [scopeFor(apiUrl)],
    deviceCodeCallback: (response) => {
      onCode(response.message);
    },
  });
  return signedIn(result);
}

/** A new access token from the cached refresh token, without user interaction. */
export async function silentRefresh(
  target: MsalTarget,
  apiUrl: string,
  homeAccountId: string,
): Promise<SignedIn> {
  const app = application(target);
  const account = await app.getTokenCache().getAccountByHomeId(homeAccountId);
  if (!account) throw new Error('the signed-in account is no longer in the token cache');
  const result = await app.acquireTokenSilent({
    account,
    scopes: [scopeFor(apiUrl)],
    // Only called when the stored access token is (nearly) expired: go to the refresh token.
    forceRefresh: true,
  });
  return signedIn(result);
}
