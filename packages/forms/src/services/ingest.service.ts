import { isRecord } from '@havn/shared';
import { labelled, type ChoiceLabels } from '../store/choice-labels.js';
import { fileLabel } from './uploads/file-names.js';
import { newDelivery, type DeliveryKind, type NewDelivery } from '../store/outbox/tables.js';
import { isAnswered, visibility } from '../logic/show-if.js';
import type { IngestForm, IngestLogic } from '../store/forms.store.js';
import type { IngestRequest, SubmissionWrite } from '../store/group-commit.js';
import { WEBHOOK_PAYLOAD_FROM_SUBMISSION } from '../store/webhook-payload.js';
import type { FileAnswer } from '../wire/submissions.js';
import { formsErrors } from '../errors.js';

/** An email delivery's stored payload: its mail is built from the submission row when sent. */
const EMAIL_PAYLOAD_FROM_SUBMISSION = '';

export interface Answers {
  answers: Record<string, unknown>;
  submitFields: Record<string, unknown> | null;
}

const previewLength = 140;

/** The ingest body's JSON (an empty body is no answers at all: parseAnswers refuses it). */
export function parseIngestBody(raw: Uint8Array): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
  } catch {
    throw formsErrors.error('BODY_NOT_JSON');
  }
}

/**
 * The flat answers map of docs/definition-format.md: values are strings, numbers, booleans, null
 * or arrays of strings, an array only for a multiple-choice question (`arrayAnswers`);
 * `submitFields` is an object of scalars. Anything else is a 400 naming the field.
 */
export function parseAnswers(body: unknown, arrayAnswers: readonly string[]): Answers {
  if (!isRecord(body)) throw formsErrors.error('BODY_NOT_ANSWERS');
  const answers: Record<string, unknown> = {};
  let submitFields: Record<string, unknown> | null = null;
  for (const [key, value] of Object.entries(body)) {
    if (key === 'submitFields') {
      if (!isRecord(value)) throw formsErrors.error('SUBMIT_FIELDS_NOT_OBJECT');
      for (const [k, v] of Object.entries(value)) {
        if (v !== null && typeof v === 'object') {
          throw formsErrors.error('SUBMIT_FIELD_INVALID', { name: k });
        }
      }
      submitFields = value;
      continue;
    }
    const scalar = value === null || ['string', 'number', 'boolean'].includes(typeof value);
    const strings = Array.isArray(value) && value.every((v) => typeof v === 'string');
    if (!scalar && !strings) {
      throw formsErrors.error('ANSWER_TYPE_INVALID', { name: key });
    }
    if (Array.isArray(value) && !arrayAnswers.includes(key)) {
      throw formsErrors.error('ANSWER_NOT_SINGLE', { name: key });
    }
    answers[key] = value;
  }
  return { answers, submitFields };
}

/**
 * The answers as the definition's steps and conditions leave them
 * (docs/definition-format.md#steps-and-conditions), with the evaluator the runtime runs: an answer
 * to a question the answers hide is dropped (kept under `submitFields.hiddenAnswers` when the
 * definition says `keepHiddenAnswers`), and a required question that is shown must be answered
 * (400 naming it) unless the submission is spam (`enforceRequired` false). Answers under names
 * the definition does not have are kept, as always.
 */
export function applyLogic(
  parsed: Answers,
  logic: IngestLogic | null,
  enforceRequired = true,
): Answers {
  if (!logic) return parsed;
  const shown = visibility(logic, parsed.answers).questions;
  const known = new Set(logic.questions.map((q) => q.logicalName));
  const answers: Record<string, unknown> = {};
  const hidden: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parsed.answers)) {
    if (shown.has(name) || !known.has(name)) answers[name] = value;
    else hidden[name] = value;
  }
  for (const name of enforceRequired ? logic.required : []) {
    if (shown.has(name) && !isAnswered(answers[name]))
      throw formsErrors.error('ANSWER_REQUIRED', { name });
  }
  const keep = logic.keepHiddenAnswers && Object.keys(hidden).length > 0;
  return {
    answers,
    submitFields: keep ? { ...parsed.submitFields, hiddenAnswers: hidden } : parsed.submitFields,
  };
}

/**
 * `text` with whitespace runs collapsed to one space and trimmed, or, when that is longer than the
 * preview, at least its first `previewLength + 2` characters. Collapsing only merges neighbours, so
 * the line's start comes from a prefix: a long message is not collapsed whole on every request.
 */
function collapsedHead(text: string): string {
  for (let end = 2 * previewLength; ; end *= 2) {
    const head = text.slice(0, end).replace(/\s+/g, ' ').trimStart();
    if (end >= text.length) return head.trimEnd();
    if (head.length > previewLength + 1) return head;
  }
}

/** A short line for feeds from the first answers, choices by their option labels. */
export function buildPreview(answers: Record<string, unknown>, labels: ChoiceLabels = {}): string {
  const parts: string[] = [];
  let length = -3;
  for (const [name, answer] of Object.entries(answers)) {
    const value = labelled(labels, name, answer);
    if (value === null || value === '' || typeof value === 'boolean') continue;
    // A file answer reads as `cv.pdf (2.9 MB)` (docs/forms.md#file-uploads).
    const part = Array.isArray(value)
      ? value.map((v) => fileLabel(v) ?? String(v)).join(', ')
      : `${value as string | number}`;
    parts.push(part);
    length += part.length + 3; // ' · '
    if (length >= previewLength) break;
  }
  const text = collapsedHead(parts.join(' · '));
  return text.length > previewLength ? `${text.slice(0, previewLength - 1)}…` : text;
}

/** Docs (definition-format.md, Spam honeypot): a filled `_gotcha` marks the submission spam. */
export function isSpam(submitFields: Record<string, unknown> | null): boolean {
  const gotcha = submitFields?._gotcha;
  return typeof gotcha === 'string' && gotcha !== '';
}

/**
 * A plain HTML form's body (docs/forms.md#plain-html-posts) as the JSON body it stands for: each
 * field an answer, a repeated field (or any field of a multiple-choice question) an array; the
 * honeypot `_gotcha`, the proof-of-work `altcha` and `submitFields.<name>` fields go to
 * `submitFields`.
 */
export function parseUrlencodedBody(raw: Uint8Array, arrayAnswers: readonly string[]): unknown {
  const params = new URLSearchParams(
    Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'),
  );
  const body: Record<string, unknown> = {};
  const submitFields: Record<string, string> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    if (key === '_gotcha') submitFields._gotcha = values.join('');
    // docs/forms.md#spam: the proof-of-work solution, under the name the ALTCHA widget gives it.
    else if (key === 'altcha') submitFields.altcha = values.join('');
    else if (key.startsWith('submitFields.')) {
      submitFields[key.slice('submitFields.'.length)] = values.join(',');
    } else if (key === 'submitFields') {
      throw formsErrors.error('SUBMIT_FIELDS_NOT_FLAT');
    } else body[key] = values.length > 1 || arrayAnswers.includes(key) ? values : values[0];
  }
  if (Object.keys(submitFields).length > 0) body.submitFields = submitFields;
  return body;
}

/** Whether `value` is a file answer's list (only multipart ingest makes them). */
export function isFileList(value: unknown): value is FileAnswer[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((f) => isRecord(f) && typeof f.id === 'string' && typeof f.sha256 === 'string')
  );
}

/**
 * The answers with the received files under their `file` questions. A `file` question is
 * answered by file parts only: any other value for it is refused, so no answer can pose as a
 * file that was never received.
 */
function withFiles(given: Answers, request: IngestRequest): Answers {
  const { uploads } = request.form;
  const names = Object.keys(uploads);
  if (names.length === 0) return given;
  const answers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given.answers)) {
    if (!Object.hasOwn(uploads, name)) answers[name] = value;
    else if (value !== null && value !== '') {
      throw formsErrors.error('FILE_ANSWER_NOT_MULTIPART', { name });
    }
  }
  for (const name of names) {
    const files = request.files?.[name];
    if (files) answers[name] = files;
  }
  return { answers, submitFields: given.submitFields };
}

/** The keys (`<submission>/<file>`) of the files the stored answers hold, hidden ones too. */
function keptFiles(
  answers: Record<string, unknown>,
  submitFields: Record<string, unknown> | null,
  submissionId: string,
): string[] {
  const hidden = submitFields?.hiddenAnswers;
  const values = [...Object.values(answers), ...(isRecord(hidden) ? Object.values(hidden) : [])];
  return values.flatMap((v) => (isFileList(v) ? v.map((f) => `${submissionId}/${f.id}`) : []));
}

/** The rows of one submission as its request delivered it (the store's SubmissionBuilder). */
export function buildFromRequest(
  request: IngestRequest,
  newId: (prefix: string) => string,
): { id: string; write: SubmissionWrite } {
  const parsed =
    request.formFields !== undefined
      ? parseUrlencodedBody(Buffer.from(request.formFields), request.form.arrayAnswers)
      : request.urlencoded === true
        ? parseUrlencodedBody(request.raw, request.form.arrayAnswers)
        : parseIngestBody(request.raw);
  return buildSubmissionWrite(request, parsed, newId);
}

/**
 * The outbox rows of a submission that is not spam: one per webhook and email recipient of the
 * form and per push subscription of the organisation. Ingest writes them with the submission;
 * "not spam" writes them when a person takes a submission out of the spam
 * (docs/forms.md#spam).
 */
export function fanOut(
  submissionId: string,
  org: string,
  form: Pick<IngestForm, 'id' | 'webhooks' | 'notify'>,
  pushSubscriptions: IngestRequest['pushSubscriptions'],
  now: number,
  createdAt: string,
  newId: (prefix: string) => string,
): NewDelivery[] {
  const delivery = (
    kind: DeliveryKind,
    target: string,
    webhookSecret: string | null,
    pushSubscriptionId: string | null,
    payload: string,
  ): NewDelivery =>
    newDelivery(
      {
        kind,
        submissionId,
        orgSlug: org,
        formId: form.id,
        target,
        webhookSecret,
        pushSubscriptionId,
        payload,
      },
      now,
      createdAt,
      newId,
    );
  const deliveries: NewDelivery[] = [];
  // docs/forms.md#webhooks: the webhook body is the full record minus the raw body. It is not
  // stored a second time here: webhookPayload builds the same bytes from the submission row for
  // every attempt (see WEBHOOK_PAYLOAD_FROM_SUBMISSION), which keeps each commit a third smaller.
  for (const hook of form.webhooks) {
    deliveries.push(
      delivery('webhook', hook.url, hook.secret, null, WEBHOOK_PAYLOAD_FROM_SUBMISSION),
    );
  }
  // docs/forms.md#email-notices: one delivery per recipient, its mail put together from the
  // submission row at each attempt (as webhooks are), so a refusal is retried for that one alone.
  for (const address of form.notify) {
    deliveries.push(delivery('email', address, null, null, EMAIL_PAYLOAD_FROM_SUBMISSION));
  }
  if (pushSubscriptions.length > 0) {
    // docs/forms.md#web-push: the push names the organisation and the form and nothing else.
    const pushPayload = JSON.stringify({ org, form: form.id });
    for (const sub of pushSubscriptions) {
      deliveries.push(delivery('push', new URL(sub.endpoint).origin, null, sub.id, pushPayload));
    }
  }
  return deliveries;
}

/**
 * The submission row and its outbox rows, ready for one group-committed transaction. Every row is
 * one object literal of its own (no spread of a shared base): this runs once per submission on
 * the writer thread, and spreading cost as much as the rest of the build.
 */
export function buildSubmissionWrite(
  request: IngestRequest,
  parsed: unknown,
  newId: (prefix: string) => string,
): { id: string; write: SubmissionWrite } {
  const given = withFiles(parseAnswers(parsed, request.form.arrayAnswers), request);
  // docs/forms.md#spam: spam is stored, never refused, so a missing required answer does not
  // turn a bot's post into a 400 that tells it what to fill in.
  const spam = isSpam(given.submitFields) || request.pow === 'refused';
  const { answers, submitFields } = applyLogic(given, request.form.logic, !spam);
  // docs/forms.md#spam: a "pow" form's solution was checked before the write; it is a means of
  // sending, not an answer, so it is not kept (the raw body still has it).
  if (request.pow !== undefined && submitFields) delete submitFields.altcha;
  const id = newId('sub');
  const files = keptFiles(answers, submitFields, id);
  const receivedAt = new Date(request.now).toISOString();
  const { org, form, now } = request;
  const deliveries = spam
    ? []
    : fanOut(id, org, form, request.pushSubscriptions, now, receivedAt, newId);
  return {
    id,
    write: {
      submission: {
        id,
        orgSlug: org,
        formId: form.id,
        receivedAt,
        read: 0,
        spam: spam ? 1 : 0,
        preview: buildPreview(answers, request.form.choiceLabels),
        answers: JSON.stringify(answers),
        submitFields: submitFields === null ? null : JSON.stringify(submitFields),
        origin: request.origin,
        referer: request.referer,
        userAgent: request.userAgent,
        ip: request.ip,
        body: request.raw,
        definitionVersion: form.definitionVersion,
        files: files.length === 0 ? null : JSON.stringify(files),
      },
      deliveries,
    },
  };
}
