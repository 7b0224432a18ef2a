import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../schema.js';
import {
  newDeliveryColumns,
  type DeliveryAttemptTable,
  type DeliveryTable,
  type NewDeliveryColumn,
} from './tables.js';

export type DeliveryRow = Selectable<DeliveryTable>;

export interface DeliveryView {
  id: string;
  kind: DeliveryRow['kind'];
  target: string;
  status: DeliveryRow['status'];
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
}

/** One attempt of a delivery as the webhook log keeps it (docs/forms.md#webhooks). */
export type AttemptRow = Pick<Selectable<DeliveryAttemptTable>, (typeof attemptColumns)[number]>;

/** A delivery with its attempts, newest attempt first. */
export interface LoggedDelivery {
  delivery: Omit<DeliveryRow, 'payload' | 'webhookSecret'>;
  attempts: AttemptRow[];
}

/** The most attempts of one delivery a log page shows: a day of retries is 11. */
const attemptsShown = 25;

/** What the delivery log reads of a delivery: all but its body and its secret. */
const loggedColumns = [
  ...newDeliveryColumns.filter(
    (c): c is Exclude<NewDeliveryColumn, 'payload' | 'webhookSecret'> =>
      c !== 'payload' && c !== 'webhookSecret',
  ),
  'leaseOwner',
  'leaseUntil',
] as const;

/** An attempt's columns, each written from the record's value of the same name. */
export const attemptColumns = [
  'deliveryId',
  'attemptedAt',
  'status',
  'durationMs',
  'error',
  'outcome',
  'response',
] as const satisfies readonly (keyof DeliveryAttemptTable)[];

/** Reads of deliveries and their attempts: a submission's, and a webhook's delivery log. */
export class DeliveryLog {
  constructor(protected readonly db: Kysely<Database>) {}

  /** A submission's deliveries as its record shows them (its test sends are the webhook's). */
  async ofSubmission(submissionId: string): Promise<DeliveryView[]> {
    const rows = await this.db
      .selectFrom('deliveries')
      .selectAll()
      .where('submissionId', '=', submissionId)
      .where('test', '=', 0)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      target: r.target,
      status: r.status,
      attempts: r.attempts,
      lastStatus: r.lastStatus,
      lastError: r.lastError,
      deliveredAt: r.deliveredAt,
      nextAttemptAt:
        r.status === 'pending' ? new Date(Number(r.nextAttemptAt)).toISOString() : null,
    }));
  }

  async attempts(
    deliveryId: string,
  ): Promise<
    { attemptedAt: string; status: number | null; durationMs: number; error: string | null }[]
  > {
    return this.db
      .selectFrom('deliveryAttempts')
      .select(['attemptedAt', 'status', 'durationMs', 'error'])
      .where('deliveryId', '=', deliveryId)
      .orderBy('id')
      .execute();
  }

  /** A page of a form's webhook deliveries to `target`, newest first, older than `before`. */
  async logPage(
    org: string,
    form: string,
    target: string,
    limit: number,
    before?: string,
  ): Promise<LoggedDelivery[]> {
    let query = this.db
      .selectFrom('deliveries')
      .select(loggedColumns)
      .where('orgSlug', '=', org)
      .where('formId', '=', form)
      .where('target', '=', target)
      .where('kind', '=', 'webhook')
      .orderBy('id', 'desc')
      .limit(limit);
    if (before !== undefined) query = query.where('id', '<', before);
    return this.withAttempts(await query.execute());
  }

  /** One delivery of the form with its attempts; undefined when the form has no such delivery. */
  async logged(org: string, form: string, id: string): Promise<LoggedDelivery | undefined> {
    const rows = await this.db
      .selectFrom('deliveries')
      .select(loggedColumns)
      .where('orgSlug', '=', org)
      .where('formId', '=', form)
      .where('id', '=', id)
      .execute();
    return (await this.withAttempts(rows))[0];
  }

  private async withAttempts(rows: LoggedDelivery['delivery'][]): Promise<LoggedDelivery[]> {
    if (rows.length === 0) return [];
    const attempts = await this.db
      .selectFrom('deliveryAttempts')
      .select(attemptColumns)
      .where(
        'deliveryId',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('id', 'desc')
      .execute();
    const byDelivery = new Map<string, AttemptRow[]>(rows.map((r) => [r.id, []]));
    for (const a of attempts) {
      const list = byDelivery.get(a.deliveryId);
      if (list && list.length < attemptsShown) list.push(a);
    }
    return rows.map((delivery) => ({ delivery, attempts: byDelivery.get(delivery.id) ?? [] }));
  }
}
