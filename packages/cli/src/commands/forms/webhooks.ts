// `havn forms webhooks test <form>`: sends a signed test delivery to each webhook of the form (or
// the one --webhook names) and shows what each receiver answered; exit 1 when one failed
// (docs/cli.md#havn-forms, docs/forms.md#delivery-log-test-sends-and-redeliver).
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { parseFormat } from '../../output/format.js';
import { renderRows } from '../../output/render-rows.js';
import {
  durationCell,
  pick,
  shortText,
  successCell,
  textOf,
  type RowView,
} from '../../output/view.js';
import { isRecord, type Row } from '../../upstream/coerce.js';
import { formsApi, onForm, parseFormId, type FormsOptions } from './forms-api.js';

export interface WebhookTestOptions extends FormsOptions {
  readonly webhook?: string;
  readonly format: string;
}

const FIELDS = [
  'id',
  'target',
  'status',
  'httpStatus',
  'durationMs',
  'error',
  'response',
  'submissionId',
] as const;

const VIEW: RowView = {
  noun: 'webhooks',
  fields: FIELDS,
  columns: [
    { header: '', cell: (r) => successCell(r.status === 'delivered') },
    { header: 'Webhook', cell: (r) => shortText(r.target, 60) },
    { header: 'Status', cell: (r) => shortText(r.status) },
    { header: 'HTTP', align: 'right', cell: (r) => ({ text: textOf(r.httpStatus) }) },
    { header: 'Time', align: 'right', cell: (r) => durationCell(r.durationMs) },
    { header: 'Error', cell: (r) => shortText(r.error, 60) },
  ],
  json: (r) => pick(r, FIELDS),
};

export async function testWebhooks(
  ctx: CliContext,
  formArg: string,
  o: WebhookTestOptions,
): Promise<void> {
  const form = parseFormId(formArg);
  const format = parseFormat(o.format);
  const api = await formsApi(ctx, o);
  const answer = await onForm(api, form, () => api.client.json('GET', api.formPath(form)));
  const stored =
    isRecord(answer) && isRecord(answer.form) && Array.isArray(answer.form.webhooks)
      ? answer.form.webhooks.flatMap((w: unknown) =>
          isRecord(w) && typeof w.url === 'string' ? [w.url] : [],
        )
      : [];
  if (o.webhook !== undefined && !stored.includes(o.webhook)) {
    throw new UsageError(
      `--webhook must be one of the webhooks of ${api.org}/${form}: ${stored.join(', ') || '(it has none)'}.`,
    );
  }
  const urls = o.webhook === undefined ? stored : [o.webhook];
  if (urls.length === 0) {
    throw new CliError(`Form ${api.org}/${form} has no webhooks to test.`);
  }
  const rows: Row[] = [];
  // One at a time, in the form's order: each answer is the delivery once attempted.
  for (const url of urls) {
    const delivery = await api.client.json('POST', api.formPath(form, '/webhooks/test'), { url });
    rows.push(flatten(delivery, url));
  }
  ctx.stdout.write(renderRows(format, VIEW, rows, ctx.color));
  const failed = rows.filter((r) => r.status !== 'delivered').length;
  if (failed > 0) {
    throw new CliError(`${String(failed)} of ${String(rows.length)} test deliveries failed.`);
  }
}

/** A test delivery with its one attempt's HTTP status, time and answer brought up a level. */
function flatten(delivery: unknown, url: string): Row {
  const d = isRecord(delivery) ? delivery : {};
  const attempt = Array.isArray(d.attemptLog) && isRecord(d.attemptLog[0]) ? d.attemptLog[0] : {};
  return {
    id: d.id ?? null,
    target: d.target ?? url,
    status: d.status ?? null,
    httpStatus: attempt.status ?? null,
    durationMs: attempt.durationMs ?? null,
    error: attempt.error ?? null,
    response: attempt.response ?? null,
    submissionId: d.submissionId ?? null,
  };
}
