// How the inbox shows values: dates in the reader's locale, answers under their labels.
import type { Definition, Question } from './api.js';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

function optionLabel(q: Question | undefined, value: string): string {
  return q?.options?.find((o) => o.value === value)?.label ?? value;
}

/** An answer as text: option labels for choices, Yes/No for consent, JSON for anything else. */
export function formatAnswer(q: Question | undefined, value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.map((v) => optionLabel(q, String(v))).join(', ') || '—';
  if (typeof value === 'string') return optionLabel(q, value);
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/** A stored file as the full record lists it, with its signed download link. */
export interface FileLink {
  name: string;
  size: number;
  url: string;
}

/** A `file` question's answer (docs/forms.md#file-uploads), or undefined for any other value. */
function fileLinks(value: unknown): FileLink[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const files = value.filter(
    (f): f is FileLink =>
      typeof f === 'object' &&
      f !== null &&
      typeof (f as FileLink).name === 'string' &&
      typeof (f as FileLink).size === 'number' &&
      typeof (f as FileLink).url === 'string' &&
      (f as FileLink).url.startsWith(location.origin),
  );
  return files.length === value.length ? files : undefined;
}

export interface AnswerRow {
  name: string;
  label: string;
  value: string;
  /** The files of a `file` question, each a download link. */
  files?: FileLink[] | undefined;
  /** The answer's question is not in the definition version it was submitted against. */
  unknown: boolean;
}

/** Answers in the definition's question order, then any answers the definition does not name. */
export function answerRows(def: Definition | null, answers: Record<string, unknown>): AnswerRow[] {
  const rows: AnswerRow[] = [];
  const seen = new Set<string>();
  for (const q of def?.questions ?? []) {
    seen.add(q.logicalName);
    rows.push({
      name: q.logicalName,
      label: q.label,
      value: formatAnswer(q, answers[q.logicalName]),
      files: fileLinks(answers[q.logicalName]),
      unknown: false,
    });
  }
  for (const [name, value] of Object.entries(answers)) {
    if (seen.has(name) || name === 'submitFields') continue;
    rows.push({ name, label: name, value: formatAnswer(undefined, value), unknown: true });
  }
  return rows;
}

export function previewText(preview: unknown): string {
  if (preview === null || preview === undefined) return '';
  if (typeof preview === 'string') return preview;
  if (typeof preview === 'object') {
    return Object.entries(preview as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${formatAnswer(undefined, v)}`)
      .join(' · ');
  }
  return JSON.stringify(preview);
}
