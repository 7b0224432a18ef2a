// `havn forms submissions <form>`: the latest submissions, and with --follow every new one as it
// arrives, once, until Ctrl-C (exit 0). docs/cli.md#havn-forms.
//
// Following polls the feed (newest first, ids time-ordered: docs/forms.md#submissions). The ids of
// the first page are "seen"; each poll prints the ids not seen yet that are newer than the oldest
// of that first page, paging back with `before` when a whole page is new, so a burst larger than a
// page is printed whole and nothing is printed twice.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { parseFormat } from '../../output/format.js';
import { renderRows } from '../../output/render-rows.js';
import { streamHeader, streamRows } from '../../output/stream-rows.js';
import { pick, shortText, timeCell, type RowView } from '../../output/view.js';
import { isRecord, type Row } from '../../upstream/coerce.js';
import { parseInterval } from '../otel/shared-options.js';
import { wholeNumber } from '../whole-number.js';
import { formsApi, onForm, parseFormId, type FormsApi, type FormsOptions } from './forms-api.js';

export interface SubmissionsOptions extends FormsOptions {
  readonly format: string;
  readonly limit: string;
  readonly unread?: boolean;
  readonly follow?: boolean;
  readonly interval?: string;
}

const FIELDS = ['id', 'form', 'receivedAt', 'read', 'spam', 'preview'] as const;

const VIEW: RowView = {
  noun: 'submissions',
  fields: FIELDS,
  columns: [
    { header: 'Received', cell: (r) => timeCell(r.receivedAt) },
    { header: 'ID', cell: (r) => shortText(r.id) },
    { header: '', cell: (r) => (r.read === false ? { text: '●', tint: 'bold' } : { text: ' ' }) },
    { header: 'Preview', cell: (r) => shortText(r.preview, 70) },
  ],
  json: (r) => pick(r, FIELDS),
};

/** The feed's page size when following; it caps at 500 (docs/forms.md#submissions). */
const PAGE = 100;
/** Pages read back in one poll at most: a burst beyond this many is reported, not hidden. */
const MAX_PAGES = 20;
/** Ids remembered; far more than a poll can bring. */
const SEEN_MAX = 10_000;

export async function listSubmissions(
  ctx: CliContext,
  formArg: string,
  o: SubmissionsOptions,
): Promise<void> {
  const form = parseFormId(formArg);
  const format = parseFormat(o.format);
  const limit = wholeNumber(o.limit, '--limit', 1, 500);
  if (o.interval !== undefined && o.follow !== true) {
    throw new UsageError('--interval applies only with --follow.');
  }
  const intervalMs = parseInterval(o.interval ?? '2s');
  if (o.follow === true && format === 'json') {
    throw new UsageError(
      '--format Json does not go with --follow: one JSON array cannot be written before the stream ends; use --format Jsonl.',
    );
  }
  const api = await formsApi(ctx, o);
  const keep = (rows: readonly Row[]) =>
    o.unread === true ? rows.filter((r) => r.read === false) : rows;
  // --unread filters what the feed answers, so it reads a full page to find `limit` of them.
  const size = o.unread === true ? 500 : o.follow === true ? Math.max(limit, PAGE) : limit;
  const first = await onForm(api, form, () => feed(api, form, size));
  const recent = keep(first).slice(0, limit);
  if (o.follow !== true) {
    if (format === 'table' && recent.length === 0) {
      ctx.stderr.write(
        `No ${o.unread === true ? 'unread ' : ''}submissions to ${api.org}/${form}.\n`,
      );
      return;
    }
    ctx.stdout.write(renderRows(format, VIEW, recent, ctx.color));
    return;
  }
  const signal = ctx.interrupted();
  // A function, not the property: the flag changes under the awaits below.
  const stopped = () => signal.aborted;
  const seen = new Set(first.map(idOf));
  // Older than everything the first page showed: history, never news.
  const oldest = first[first.length - 1];
  const floor = first.length === size && oldest ? idOf(oldest) : '';
  ctx.stdout.write(streamHeader(format, VIEW));
  if (format === 'table' && recent.length === 0) {
    ctx.stderr.write(`No submissions to ${api.org}/${form} yet; waiting (Ctrl-C stops).\n`);
  }
  // A tail reads down: oldest first.
  ctx.stdout.write(streamRows(format, VIEW, [...recent].reverse(), ctx.color));
  while (!stopped()) {
    try {
      await sleep(intervalMs, undefined, { signal });
    } catch {
      return;
    }
    let fresh: Row[];
    try {
      fresh = await newSince(api, form, seen, floor, signal);
    } catch (error) {
      if (stopped()) return;
      if (error instanceof CliError && error.transient) {
        const line = error.message.split('\n')[0] ?? '';
        ctx.stderr.write(`Warning: ${line} Still following; the next poll catches up.\n`);
        continue;
      }
      throw error;
    }
    for (const row of fresh) seen.add(idOf(row));
    for (const id of seen) {
      if (seen.size <= SEEN_MAX) break;
      seen.delete(id);
    }
    ctx.stdout.write(streamRows(format, VIEW, keep(fresh), ctx.color));
  }
}

/** The submissions not seen yet, oldest first. */
async function newSince(
  api: FormsApi,
  form: string,
  seen: ReadonlySet<string>,
  floor: string,
  signal: AbortSignal,
): Promise<Row[]> {
  const fresh: Row[] = [];
  let before: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await feed(api, form, PAGE, before, signal);
    const unseen = page.filter((r) => !seen.has(idOf(r)) && idOf(r) > floor);
    fresh.push(...unseen);
    // A page that is all new may have more new ones behind it.
    if (page.length < PAGE || unseen.length < page.length) break;
    const last = page[page.length - 1];
    if (!last) break;
    before = idOf(last);
  }
  return fresh.reverse();
}

async function feed(
  api: FormsApi,
  form: string,
  limit: number,
  before?: string,
  signal?: AbortSignal,
): Promise<Row[]> {
  const answer = await api.client.json('GET', api.formPath(form, '/submissions'), undefined, {
    query: { limit: String(limit), before },
    signal,
  });
  return isRecord(answer) && Array.isArray(answer.submissions)
    ? answer.submissions.filter(isRecord)
    : [];
}

function idOf(row: Row): string {
  return typeof row.id === 'string' ? row.id : '';
}
