// docs/forms.md#webhooks: a test send of a form that has no submission yet carries a sample made
// from its definition, shaped exactly like a real record so a receiver's parsing is tested too.

/** The id prefix of a sample submission; no stored submission has it. */
export const SAMPLE_ID_PREFIX = 'sample_';

type Question = Record<string, unknown>;

function sampleAnswer(q: Question, today: string): unknown {
  const options = Array.isArray(q.options) ? (q.options as { value?: unknown }[]) : [];
  switch (q.type) {
    case 'email':
      return 'test@example.com';
    case 'number': {
      const min = typeof q.min === 'number' ? q.min : undefined;
      const max = typeof q.max === 'number' ? q.max : undefined;
      return min ?? (max !== undefined ? Math.min(max, 1) : 1);
    }
    case 'date':
      return typeof q.min === 'string' && q.min > today ? q.min : today;
    case 'consent':
      return true;
    case 'choice': {
      const first = options[0]?.value;
      if (typeof first !== 'string') return undefined;
      return q.multiple === true ? [first] : first;
    }
    default:
      return `Test answer to ${typeof q.label === 'string' ? q.label : String(q.logicalName)}`;
  }
}

/** The answers map of a sample submission: one plausible answer per question. */
export function sampleAnswers(definition: Record<string, unknown> | undefined, now: number) {
  const today = new Date(now).toISOString().slice(0, 10);
  const questions = Array.isArray(definition?.questions)
    ? (definition.questions as Question[])
    : [];
  const answers: Record<string, unknown> = {};
  for (const q of questions) {
    if (typeof q.logicalName !== 'string') continue;
    const value = sampleAnswer(q, today);
    if (value !== undefined) answers[q.logicalName] = value;
  }
  return answers;
}

/** A whole sample record, as a webhook's `data` carries a real one. */
export function sampleRecord(input: {
  id: string;
  org: string;
  form: string;
  definition: Record<string, unknown> | undefined;
  definitionVersion: number | null;
  now: number;
}) {
  const answers = sampleAnswers(input.definition, input.now);
  const receivedAt = new Date(input.now).toISOString();
  const preview = Object.values(answers)
    .map((v) => (Array.isArray(v) ? v.join(', ') : String(v)))
    .join(' · ')
    .slice(0, 140);
  return {
    id: input.id,
    org: input.org,
    form: input.form,
    receivedAt,
    read: false,
    spam: false,
    preview,
    answers,
    submitFields: null,
    origin: null,
    referer: null,
    userAgent: 'Havn-Webhooks/1 (test)',
    ip: '127.0.0.1',
    definitionVersion: input.definitionVersion,
  };
}
