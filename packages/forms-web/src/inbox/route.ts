// Hash routes (docs/definition-format.md): #/ (all submissions), #/forms, #/forms/<form>,
// #/forms/<form>/spam (docs/forms-web.md#spam), #/submissions/<form>/<id>; and the management
// views of docs/forms-web.md ("Managing forms"): #/new-form, #/forms/<form>/settings/<tab>,
// #/tokens; and #/setup/<code>, the page a setup link opens.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { name: 'feed' }
  | { name: 'forms' }
  | { name: 'form'; form: string }
  | { name: 'spam'; form: string }
  | { name: 'submission'; form: string; id: string }
  | { name: 'new-form' }
  | { name: 'settings'; form: string; tab: SettingsTab }
  | { name: 'tokens' }
  | { name: 'setup'; code: string };

export const SETTINGS_TABS = ['details', 'definition', 'origins', 'webhooks', 'embed'] as const;
export type SettingsTab = (typeof SETTINGS_TABS)[number];

function isTab(v: string | undefined): v is SettingsTab {
  return (SETTINGS_TABS as readonly (string | undefined)[]).includes(v);
}

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'forms' && parts[1] && parts[2] === 'settings') {
    return { name: 'settings', form: parts[1], tab: isTab(parts[3]) ? parts[3] : 'details' };
  }
  if (parts[0] === 'forms' && parts[1] && parts[2] === 'spam') {
    return { name: 'spam', form: parts[1] };
  }
  if (parts[0] === 'forms' && parts[1]) return { name: 'form', form: parts[1] };
  if (parts[0] === 'new-form') return { name: 'new-form' };
  if (parts[0] === 'tokens') return { name: 'tokens' };
  // docs/forms-web.md#first-run: a setup link, its one-time code in the fragment.
  if (parts[0] === 'setup' && parts[1]) return { name: 'setup', code: parts[1] };
  if (parts[0] === 'forms') return { name: 'forms' };
  if (parts[0] === 'submissions' && parts[1] && parts[2]) {
    return { name: 'submission', form: parts[1], id: parts[2] };
  }
  return { name: 'feed' };
}

export const href = {
  feed: () => '#/',
  forms: () => '#/forms',
  form: (form: string) => `#/forms/${encodeURIComponent(form)}`,
  spam: (form: string) => `#/forms/${encodeURIComponent(form)}/spam`,
  newForm: () => '#/new-form',
  settings: (form: string, tab: SettingsTab = 'details') =>
    `#/forms/${encodeURIComponent(form)}/settings/${tab}`,
  tokens: () => '#/tokens',
  submission: (form: string, id: string) =>
    `#/submissions/${encodeURIComponent(form)}/${encodeURIComponent(id)}`,
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => {
      setRoute(parseRoute(location.hash));
    };
    addEventListener('hashchange', onChange);
    return () => {
      removeEventListener('hashchange', onChange);
    };
  }, []);
  return route;
}
