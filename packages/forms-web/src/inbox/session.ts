// Where the inbox keeps the organisation slug and token (docs/forms-web.md, "Signing in"):
// localStorage when the person ticks "keep me signed in" (so the installed app and its
// notifications open straight into the inbox), sessionStorage otherwise (gone with the tab).

export interface Credentials {
  org: string;
  token: string;
}

const KEY = 'havn.inbox.session.v2';
// Sessions kept before the sign-in refused the admin token: one of them may hold it, so it is
// dropped unread and the person signs in once more.
const UNCHECKED_KEY = 'havn.inbox.session';

export function loadSession(): Credentials | null {
  for (const store of [sessionStorage, localStorage]) store.removeItem(UNCHECKED_KEY);
  for (const store of [sessionStorage, localStorage]) {
    try {
      const value = store.getItem(KEY);
      if (!value) continue;
      const parsed = JSON.parse(value) as Partial<Credentials>;
      if (typeof parsed.org === 'string' && typeof parsed.token === 'string') {
        return { org: parsed.org, token: parsed.token };
      }
    } catch {
      // unreadable entry: ignore it
    }
  }
  return null;
}

export function saveSession(creds: Credentials, remember: boolean): void {
  clearSession();
  (remember ? localStorage : sessionStorage).setItem(KEY, JSON.stringify(creds));
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
  localStorage.removeItem(KEY);
}
