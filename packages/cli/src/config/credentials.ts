// The stored sign-in, <configDir>/credentials.json, mode 0600 (docs/cli.md#where-files-live). One record: the
// current access token, when it expires, and how to get a new one (MSAL's cache for a device-code
// sign-in, `az` for --azure-cli; nothing for --with-token).
import { join } from 'node:path';
import { readOptionalFile, removeFile, writeFileAtomic } from './private-file.js';

interface CredentialBase {
  readonly accessToken: string;
  /** Epoch milliseconds; null when unknown (an opaque token from --with-token). */
  readonly expiresOn: number | null;
  /** The API base URL the token was issued for (audience `{apiUrl}/.default`). */
  readonly apiUrl: string;
}

export interface StaticCredential extends CredentialBase {
  readonly kind: 'token';
}

export interface AzureCliCredential extends CredentialBase {
  readonly kind: 'azure-cli';
  readonly tenant?: string;
}

export interface DeviceCodeCredential extends CredentialBase {
  readonly kind: 'device-code';
  readonly clientId: string;
  readonly authority: string;
  readonly homeAccountId: string;
  readonly username?: string;
}

export type StoredCredential = StaticCredential | AzureCliCredential | DeviceCodeCredential;

export function credentialsPath(configDir: string): string {
  return join(configDir, 'credentials.json');
}

export function msalCachePath(configDir: string): string {
  return join(configDir, 'msal-cache.json');
}

/** The stored credential, or undefined when there is none or the file is unreadable. */
export async function loadCredential(configDir: string): Promise<StoredCredential | undefined> {
  const text = await readOptionalFile(credentialsPath(configDir));
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<StoredCredential>;
    const valid =
      (parsed.kind === 'token' || parsed.kind === 'azure-cli' || parsed.kind === 'device-code') &&
      typeof parsed.accessToken === 'string' &&
      typeof parsed.apiUrl === 'string' &&
      (parsed.expiresOn === null || typeof parsed.expiresOn === 'number');
    return valid ? (parsed as StoredCredential) : undefined;
  } catch {
    // A damaged file is no sign-in; `havn login` rewrites it.
    return undefined;
  }
}

export async function saveCredential(
  configDir: string,
  credential: StoredCredential,
): Promise<void> {
  await writeFileAtomic(credentialsPath(configDir), `${JSON.stringify(credential)}\n`, 0o600);
}

/** Forgets every stored sign-in; true when there was something to forget. */
export async function removeCredentials(configDir: string): Promise<boolean> {
  const a = await removeFile(credentialsPath(configDir));
  const b = await removeFile(msalCachePath(configDir));
  return a || b;
}
