import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, DeliveryAttemptTable, DeliveryTable } from './schema.js';
import { RECORD_COLUMNS } from './submissions.store.js';
import type { WebhookSource } from './webhook-payload.js';
import type { DeliveryRow } from './deliveries.store.js';

/** One attempt of a delivery as the webhook log keeps it (docs/forms.md#webhooks). */
export type AttemptRow = Pick<
  Selectable<DeliveryAttemptTable>,
  'deliveryId' | 'attemptedAt' | 'status' | 'durationMs' | 'error' | 'outcome' | 'response'
>;

/** A delivery with its attempts, newest attempt first. */
export interface LoggedDelivery {
  delivery: Omit<DeliveryRow, 'payload' | 'webhookSecret'>;
  attempts: AttemptRow[];
}

/** The most attempts of one delivery a page shows: a day of retries is 11. */
const attemptsShown = 25;

const deliveryColumns = [
  'id',
  'submissionId',
  'orgSlug',
  'formId',
  'kind',
  'target',
  'pushSubscriptionId',
  'status',
  'attempts',
  'roundAttempts',
  'nextAttemptAt',
  'lastStatus',
  'lastError',
  'deliveredAt',
  'createdAt',
  'leaseOwner',
  'leaseUntil',
  'test',
] as const satisfies readonly (keyof DeliveryTable)[];

/**
 * The reads and writes behind a webhook's delivery log: its deliveries newest first, their
 * attempts, one delivery queued again, and test sends (docs/forms.md#webhooks).
 */
export class WebhookLogStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** A page of a form's deliveries to `target`, newest first, older than `before` when given. */
  async page(
    org: string,
    form: string,
    target: string,
    limit: number,
    before?: string,
  ): Promise<LoggedDelivery[]> {
    let query = this.db
      .selectFrom('deliveries')
      .select(deliveryColumns)
      .where('orgSlug', '=', org)
      .where('formId', '=', form)
      .where('target', '=', target)
      .where('kind', '=', 'webhook')
      .orderBy('id', 'desc')
      .limit(limit);
    if (before !== undefined) query = query.where('id', '<', before);
    const rows = await query.execute();
    return this.withAttempts(rows);
  }

  /** One delivery of the form with its attempts; undefined when the form has no such delivery. */
  async get(org: string, form: string, id: string): Promise<LoggedDelivery | undefined> {
    const rows = await this.db
      .selectFrom('deliveries')
      .select(deliveryColumns)
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
      .select(['deliveryId', 'attemptedAt', 'status', 'durationMs', 'error', 'outcome', 'response'])
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

  /**
   * Queues one delivery of the form again from the start of the retry schedule, now (a lease is
   * let go, as in a submission's redeliver). `dropped` for a push whose subscription is gone.
   */
  async requeue(
    org: string,
    form: string,
    id: string,
    now: number,
  ): Promise<'queued' | 'dropped' | 'missing'> {
    const r = await this.db
      .updateTable('deliveries')
      .set({
        status: 'pending',
        roundAttempts: 0,
        nextAttemptAt: now,
        leaseOwner: null,
        leaseUntil: null,
      })
      .where('orgSlug', '=', org)
      .where('formId', '=', form)
      .where('id', '=', id)
      .where('status', '!=', 'dropped')
      .executeTakeFirst();
    if (r.numUpdatedRows > 0n) return 'queued';
    return (await this.get(org, form, id)) ? 'dropped' : 'missing';
  }

  /** The form's latest submission that is not spam, as a webhook body is made from it. */
  async latestSubmission(org: string, form: string): Promise<WebhookSource | undefined> {
    return this.db
      .selectFrom('submissions')
      .select([...RECORD_COLUMNS])
      .where('orgSlug', '=', org)
      .where('formId', '=', form)
      .where('spam', '=', 0)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Stores a test send that was already attempted: the delivery and its one attempt together. */
  async insertTest(
    delivery: Insertable<DeliveryTable>,
    attempt: Omit<Insertable<DeliveryAttemptTable>, 'deliveryId'>,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('deliveries')
        .values({ ...delivery, test: 1 })
        .execute();
      await trx
        .insertInto('deliveryAttempts')
        .values({ ...attempt, deliveryId: delivery.id })
        .execute();
    });
  }
}
