// The mail of an email notice (docs/forms.md#email-notices). Every answer is hostile input: it
// reaches the mail only as body text (plain, and escaped HTML), never a header; the subject and
// the Reply-To are built from the form's name and from an answer only after control characters
// are taken out and the address is checked, so no answer can add a header or markup.
import { fileLabel } from '../uploads/file-names.js';
import { isEmailAddress } from '../../smtp-config.js';

export interface NoticeSource {
  org: string;
  formId: string;
  formName: string;
  submissionId: string;
  receivedAt: string;
  answers: Record<string, unknown>;
  /** The definition the submission was made against, for question labels; null when gone. */
  definition: Record<string, unknown> | null;
  /** The submission in the inbox. */
  link: string;
}

export interface NoticeMail {
  subject: string;
  text: string;
  html: string;
  /** The answer to the form's first email question, when it is a plain address. */
  replyTo: string | undefined;
}

interface Question {
  logicalName: string;
  type: string;
  label: string;
  options: Map<string, string>;
}

/** The definition's questions, tolerating any shape (an old version may be odd). */
function questionsOf(definition: Record<string, unknown> | null): Question[] {
  const list = Array.isArray(definition?.questions) ? (definition.questions as unknown[]) : [];
  return list.flatMap((q) => {
    const { logicalName, type, label, options } = (q ?? {}) as Record<string, unknown>;
    if (typeof logicalName !== 'string') return [];
    const labels = new Map<string, string>();
    if (Array.isArray(options)) {
      for (const o of options as unknown[]) {
        const { value, label: l } = (o ?? {}) as Record<string, unknown>;
        if (typeof value === 'string' && typeof l === 'string') labels.set(value, l);
      }
    }
    return [
      {
        logicalName,
        type: typeof type === 'string' ? type : 'text',
        label: typeof label === 'string' && label !== '' ? label : logicalName,
        options: labels,
      },
    ];
  });
}

/** One line for a header: control characters (CR and LF first of all) become spaces. */
function headerText(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${String(c.charCodeAt(0))};`);
}

/** An answer as text: option labels for choices, "yes"/"no" for booleans, lists joined. */
function answerText(value: unknown, question: Question | undefined): string {
  const one = (v: unknown): string => {
    if (v === null || v === undefined) return '';
    if (typeof v === 'boolean') return v ? 'yes' : 'no';
    if (typeof v === 'string') return question?.options.get(v) ?? v;
    if (typeof v === 'number') return String(v);
    // docs/forms.md#file-uploads: a file by its name and size; the inbox has its bytes.
    return fileLabel(v) ?? JSON.stringify(v);
  };
  return Array.isArray(value) ? value.map(one).join(', ') : one(value);
}

/** Builds the notice of one submission. */
export function noticeMail(source: NoticeSource): NoticeMail {
  const questions = questionsOf(source.definition);
  const byName = new Map(questions.map((q) => [q.logicalName, q]));
  // The definition's order first, then answers it does not name (a newer or older field).
  const names = [
    ...questions.map((q) => q.logicalName).filter((n) => n in source.answers),
    ...Object.keys(source.answers).filter((n) => !byName.has(n)),
  ];
  const rows = names.map((name) => {
    const question = byName.get(name);
    return { label: question?.label ?? name, value: answerText(source.answers[name], question) };
  });
  const replyTo = questions
    .filter((q) => q.type === 'email')
    .map((q) => source.answers[q.logicalName])
    .find((v): v is string => typeof v === 'string' && isEmailAddress(v));

  const formName = headerText(source.formName || source.formId, 150);
  const subject = `New submission: ${formName}`;
  const text = [
    `New submission to ${formName} (${source.org}/${source.formId}), received ${source.receivedAt}.`,
    '',
    ...rows.flatMap((r) => [`${r.label}:`, indent(r.value === '' ? '(no answer)' : r.value), '']),
    `Open it in the inbox: ${source.link}`,
    '',
    `Submission ${source.submissionId}. You get this mail because you are on the form's notify list.`,
    '',
  ].join('\n');
  const cell = 'padding:6px 12px 6px 0;vertical-align:top;text-align:left';
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family:system-ui,sans-serif;color:#1f2328">
<p>New submission to <strong>${escapeHtml(formName)}</strong> (${escapeHtml(`${source.org}/${source.formId}`)}), received ${escapeHtml(source.receivedAt)}.</p>
<table style="border-collapse:collapse">
${rows
  .map(
    (r) =>
      `<tr><th scope="row" style="${cell}">${escapeHtml(r.label)}</th><td style="${cell};white-space:pre-wrap">${r.value === '' ? '<em>(no answer)</em>' : escapeHtml(r.value)}</td></tr>`,
  )
  .join('\n')}
</table>
<p><a href="${escapeHtml(source.link)}">Open it in the inbox</a></p>
<p style="color:#59636e;font-size:small">Submission ${escapeHtml(source.submissionId)}. You get this mail because you are on the form's notify list.</p>
</body></html>
`;
  return { subject, text, html, replyTo };
}

/** A multi-line answer, each line indented, so it cannot pass for a label of its own. */
function indent(value: string): string {
  return value
    .split(/\r\n|\r|\n/)
    .map((line) => `  ${line}`)
    .join('\n');
}
