// `havn render artifacts`: the service's live artifacts, newest first, or one session's
// (docs/cli.md#havn-render, docs/render.md#get-v1artifacts).
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseFormat } from '../../output/format.js';
import { renderRows } from '../../output/render-rows.js';
import { pick, shortText, textOf, timeCell, type RowView } from '../../output/view.js';
import { isRecord, type Row } from '../../upstream/coerce.js';
import { wholeNumber } from '../whole-number.js';
import { renderClient, type RenderTargetOptions } from './render-api.js';

export interface ArtifactsOptions extends RenderTargetOptions {
  readonly session?: string;
  readonly label?: string[];
  readonly limit: string;
  readonly format: string;
}

const FIELDS = ['id', 'url', 'contentType', 'bytes', 'createdAt', 'session', 'labels'] as const;

const VIEW: RowView = {
  noun: 'artifacts',
  fields: FIELDS,
  columns: [
    { header: 'Created', cell: (r) => timeCell(r.createdAt) },
    { header: 'ID', cell: (r) => shortText(r.id) },
    { header: 'Type', cell: (r) => shortText(r.contentType) },
    { header: 'Bytes', align: 'right', cell: (r) => ({ text: textOf(r.bytes) }) },
    { header: 'Session', cell: (r) => shortText(r.session) },
    {
      header: 'Labels',
      cell: (r) =>
        shortText(
          isRecord(r.labels)
            ? Object.entries(r.labels)
                .map(([k, v]) => `${k}:${textOf(v)}`)
                .join(' ')
            : '',
          50,
        ),
    },
  ],
  json: (r) => pick(r, FIELDS),
};

/** The service's page size cap (docs/render.md#get-v1artifacts). */
const PAGE = 500;

export async function listArtifacts(ctx: CliContext, o: ArtifactsOptions): Promise<void> {
  const format = parseFormat(o.format);
  const limit = wholeNumber(o.limit, '--limit', 1, 10_000);
  for (const label of o.label ?? []) {
    if (!/^[^:]+:.*$/.test(label))
      throw new UsageError(`--label must be key:value; got '${label}'.`);
  }
  const client = await renderClient(ctx, o);
  const rows: Row[] = [];
  let cursor: string | undefined;
  do {
    const answer = await client.json('GET', '/v1/artifacts', undefined, {
      query: {
        limit: String(Math.min(PAGE, limit - rows.length)),
        session: o.session,
        label: o.label,
        cursor,
      },
    });
    if (!isRecord(answer)) break;
    rows.push(...(Array.isArray(answer.artifacts) ? answer.artifacts.filter(isRecord) : []));
    cursor = typeof answer.cursor === 'string' ? answer.cursor : undefined;
  } while (cursor !== undefined && rows.length < limit);
  if (format === 'table' && rows.length === 0) {
    ctx.stderr.write(`No artifacts${o.session === undefined ? '' : ` of session ${o.session}`}.\n`);
    return;
  }
  ctx.stdout.write(renderRows(format, VIEW, rows, ctx.color));
}
