// Hash routes (docs/definition-format.md): #/ (all submissions), #/forms, #/forms/<form>,
// #/submissions/<form>/<id>.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { name: 'feed' }
  | { name: 'forms' }
  | { name: 'form'; form: string }
  | { name: 'submission'; form: string; id: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'forms' && parts[1]) return { name: 'form', form: parts[1] };
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
