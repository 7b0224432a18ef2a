import type { Transaction } from 'kysely';
import type { Database } from '../schema.js';

/** Bound on the ids of one `in (…)` list, far below SQLite's and PostgreSQL's parameter limits. */
const CHUNK = 500;

/**
 * Deletes the deliveries `where` picks and then their attempt log, in the caller's transaction,
 * in that order. Erasure and an attempt being recorded are ordered by the delivery's row
 * (docs/forms.md#submissions): deleting the deliveries first waits for an attempt record that
 * holds its delivery's row, so that attempt's log row is committed and then erased here; an
 * attempt recorded after the erasure finds its delivery gone and writes nothing (the attempt
 * record's statements, outbox.ts).
 */
export async function eraseDeliveries(
  trx: Transaction<Database>,
  where: { submissionId: string } | { orgSlug: string; formId: string; receivedBefore?: string },
): Promise<void> {
  let q = trx.deleteFrom('deliveries');
  if ('submissionId' in where) {
    q = q.where('submissionId', '=', where.submissionId);
  } else {
    q = q.where('orgSlug', '=', where.orgSlug).where('formId', '=', where.formId);
    if (where.receivedBefore !== undefined) {
      const old = trx
        .selectFrom('submissions')
        .select('id')
        .where('orgSlug', '=', where.orgSlug)
        .where('formId', '=', where.formId)
        .where('receivedAt', '<', where.receivedBefore);
      q = q.where('submissionId', 'in', old);
    }
  }
  const gone = await q.returning('id').execute();
  for (let i = 0; i < gone.length; i += CHUNK) {
    const ids = gone.slice(i, i + CHUNK).map((r) => r.id);
    await trx.deleteFrom('deliveryAttempts').where('deliveryId', 'in', ids).execute();
  }
}
