// The hosted page (/f/<org>/<form>) checks its own origin when it loads (docs/forms-web.md,
// "Embedding a form"). Loading the definition cannot tell: a same-origin GET carries no Origin
// header, so the server serves it whatever the form allows, and only Send would find out. An
// OPTIONS request does carry the page's Origin (the Fetch standard adds it to every method but GET
// and HEAD), and the server's preflight answers it with the same gate as a submission: 204 for an
// allowed origin, 403 for any other. So the page asks before anyone types, and on a refusal shows
// who must add which origin where, instead of a form that cannot be sent.

/** True when the server refuses submissions from this page's origin; false when unsure. */
export async function originRefused(submissionsUrl: string): Promise<boolean> {
  let res: Response;
  try {
    res = await fetch(submissionsUrl, { method: 'OPTIONS', cache: 'no-store' });
  } catch {
    return false; // the network's fault: the form's own loading says so, with Try again
  }
  if (res.status !== 403) return false;
  const body = (await res.json().catch(() => ({}))) as { error?: unknown };
  // A browser that sent no Origin at all cannot be judged here; Send will be.
  return body.error !== 'an Origin header is required';
}

/** Shows, in place of the form, that this origin must be allowed, and where to allow it. */
export function showOriginRefused(host: HTMLElement, origin: string): void {
  const code = (text: string) => {
    const c = document.createElement('code');
    c.textContent = text;
    return c;
  };
  const p = (...parts: (string | Node)[]) => {
    const para = document.createElement('p');
    para.append(...parts);
    return para;
  };
  const title = document.createElement('h1');
  title.textContent = 'This form cannot take answers here yet';
  const box = document.createElement('div');
  box.setAttribute('role', 'alert');
  box.append(
    title,
    p(
      'Its owner has not allowed this page’s origin, ',
      code(origin),
      ', so answers sent from it would be refused.',
    ),
    p(
      'If this is your form: add ',
      code(origin),
      ' to its allowed origins, in the inbox under the form’s Settings → Allowed origins (or in ',
      code('allowedOrigins'),
      ' through the API), then reload this page.',
    ),
  );
  host.replaceChildren(box);
}
