// The three ways to put a form on a site (docs/forms-web.md, "Embedding a form"), filled in with
// the form's real URLs. The server takes answers as JSON only, so the plain HTML form carries a
// few lines of script that send it as JSON (without it the browser would send form encoding).

interface Question {
  logicalName: string;
  type: string;
  label: string;
  required?: boolean;
  multiple?: boolean;
  options?: { value: string; label: string }[];
  min?: number | string;
  max?: number | string;
  step?: number;
}

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function submitUrl(embedUrl: string): string {
  return embedUrl.replace(/\/definition$/, '/submissions');
}

function field(q: Question, formId: string): string {
  const id = `${formId}-${q.logicalName}`;
  const req = q.required ? ' required' : '';
  const name = esc(q.logicalName);
  const bounds = (['min', 'max', 'step'] as const)
    .filter((k) => q[k] !== undefined)
    .map((k) => ` ${k}="${esc(String(q[k]))}"`)
    .join('');
  if (q.type === 'choice') {
    const type = q.multiple ? 'checkbox' : 'radio';
    const options = (q.options ?? [])
      .map(
        (o) =>
          `    <label><input type="${type}" name="${name}" value="${esc(o.value)}"${q.multiple ? '' : req}> ${esc(o.label)}</label>`,
      )
      .join('\n');
    return `  <fieldset>\n    <legend>${esc(q.label)}</legend>\n${options}\n  </fieldset>`;
  }
  if (q.type === 'consent') {
    return `  <p><label><input type="checkbox" name="${name}" value="true"${req}> ${esc(q.label)}</label></p>`;
  }
  const control =
    q.type === 'textarea'
      ? `<textarea id="${id}" name="${name}"${req}></textarea>`
      : `<input id="${id}" name="${name}" type="${q.type === 'email' || q.type === 'number' || q.type === 'date' ? q.type : 'text'}"${bounds}${req}>`;
  return `  <p><label for="${id}">${esc(q.label)}</label><br>\n  ${control}</p>`;
}

export function htmlFormSnippet(embedUrl: string, formId: string, definition: unknown): string {
  const def = (definition ?? {}) as { questions?: Question[]; thanks?: string };
  const questions = Array.isArray(def.questions) ? def.questions : [];
  const id = `havn-${formId.replace(/[^A-Za-z0-9_-]/g, '')}`;
  const multiple = questions
    .filter((q) => q.type === 'choice' && q.multiple)
    .map((q) => q.logicalName);
  const consent = questions.filter((q) => q.type === 'consent').map((q) => q.logicalName);
  const numbers = questions.filter((q) => q.type === 'number').map((q) => q.logicalName);
  const thanks = def.thanks ?? 'Thank you!';
  return `<form id="${id}" action="${submitUrl(embedUrl)}" method="post">
${questions.map((q) => field(q, id)).join('\n')}
  <p><button type="submit">Send</button></p>
  <p role="status"></p>
</form>
<script>
// Havn takes answers as JSON: send the form that way.
document.getElementById(${JSON.stringify(id)}).addEventListener('submit', async (e) => {
  e.preventDefault();
  const form = e.currentTarget, data = new FormData(form), body = {};
  for (const [k, v] of data) body[k] = ${JSON.stringify(multiple)}.includes(k) ? [...(body[k] || []), v] : v;
  for (const k of ${JSON.stringify(consent)}) body[k] = data.has(k);
  for (const k of ${JSON.stringify(numbers)}) if (body[k] !== undefined && body[k] !== '') body[k] = Number(body[k]); else delete body[k];
  body.submitFields = { _gotcha: '' };
  const status = form.querySelector('[role=status]');
  try {
    const res = await fetch(form.action, { method: 'POST', credentials: 'include',
      headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    status.textContent = res.ok ? ${JSON.stringify(thanks)} : 'It could not be sent (' + res.status + '). Try again.';
    if (res.ok) form.reset();
  } catch { status.textContent = 'It could not be sent. Check your connection and try again.'; }
});
</script>`;
}
