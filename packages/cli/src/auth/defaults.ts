// Sign-in defaults, apart from the MSAL module so that help text does not load MSAL.

/**
 * The Azure CLI's public client ID. Microsoft pre-authorises it for the Azure data planes,
 * Application Insights included, so device-code sign-in works without registering an app; as
 * with `az`, an organisation can block it, and --client-id names its own registration instead.
 */
export const DEFAULT_CLIENT_ID = '04b07795-8ddb-461a-bbee-02f9e1bf7b46';
export const DEFAULT_AUTHORITY_HOST = 'https://login.microsoftonline.com';
export const DEFAULT_TENANT = 'organizations';

/** The token audience for an API base URL: `{api_url}/.default` (docs/cli.md#sign-in). */
export function scopeFor(apiUrl: string): string {
  return `${apiUrl.replace(/\/+$/, '')}/.default`;
}

/**
 * Refreshable tokens are renewed this long before they expire, so a query never starts with a
 * token that dies in flight.
 */
export const REFRESH_MARGIN_MS = 5 * 60_000;
