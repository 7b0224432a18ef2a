// `havn forms list`: the organisation's forms with their counts (docs/cli.md#havn-forms).
import type { CliContext } from '../../context.js';
import { parseFormat } from '../../output/format.js';
import { renderRows } from '../../output/render-rows.js';
import { pick, shortText, textOf, timeCell, type RowView } from '../../output/view.js';
import { isRecord, type Row } from '../../upstream/coerce.js';
import { formsApi, type FormsOptions } from './forms-api.js';

const FIELDS = [
  'id',
  'name',
  'description',
  'submissions',
  'unread',
  'lastSubmissionAt',
  'definitionVersion',
  'createdAt',
  'updatedAt',
] as const;

const VIEW: RowView = {
  noun: 'forms',
  fields: FIELDS,
  columns: [
    { header: 'Form', cell: (r) => shortText(r.id) },
    { header: 'Name', cell: (r) => shortText(r.name, 40) },
    { header: 'Submissions', align: 'right', cell: (r) => ({ text: textOf(r.submissions) }) },
    { header: 'Unread', align: 'right', cell: (r) => ({ text: textOf(r.unread) }) },
    { header: 'Last submission', cell: (r) => timeCell(r.lastSubmissionAt) },
    { header: 'Version', align: 'right', cell: (r) => ({ text: textOf(r.definitionVersion) }) },
  ],
  json: (r) => pick(r, FIELDS),
};

export interface ListOptions extends FormsOptions {
  readonly format: string;
}

export async function listForms(ctx: CliContext, o: ListOptions): Promise<void> {
  const format = parseFormat(o.format);
  const api = await formsApi(ctx, o);
  const answer = await api.client.json('GET', `/api/orgs/${encodeURIComponent(api.org)}/forms`);
  const forms: Row[] =
    isRecord(answer) && Array.isArray(answer.forms) ? answer.forms.filter(isRecord) : [];
  if (format === 'table' && forms.length === 0) {
    ctx.stderr.write(`${api.org} has no forms yet.\n`);
    return;
  }
  ctx.stdout.write(renderRows(format, VIEW, forms, ctx.color));
}
