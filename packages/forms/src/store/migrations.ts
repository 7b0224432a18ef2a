import {
  sql,
  type ColumnDataType,
  type Expression,
  type Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
} from 'kysely';
import type { Database } from './schema.js';

/** A column type as `addColumn` takes it. */
type DataTypeExpression = ColumnDataType | Expression<unknown>;

/** Column types that differ between the dialects; everything else is shared SQL. */
export interface SqlTypes {
  readonly binary: 'blob' | 'bytea';
  readonly serial: 'integer' | 'serial';
  /**
   * Ids and slugs, which feeds order and page by: compared byte by byte on both dialects. SQLite
   * does so by default; a PostgreSQL database's default collation may not (a locale's collation
   * skips `-` and `_` at first), so its key columns are `COLLATE "C"`.
   */
  readonly key: (length: number) => DataTypeExpression;
}

export const sqliteTypes: SqlTypes = {
  binary: 'blob',
  serial: 'integer',
  key: (length) => `varchar(${length})` as const,
};

export const postgresTypes: SqlTypes = {
  binary: 'bytea',
  serial: 'serial',
  key: (length) => sql`varchar(${sql.raw(String(length))}) collate "C"`,
};

// Migrations are code, applied in name order at start (Kysely Migrator). Never edit one that has
// shipped; add the next.
function initial(types: SqlTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('orgs')
        .addColumn('slug', types.key(64), (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('org_tokens')
        .addColumn('id', types.key(40), (c) => c.primaryKey())
        .addColumn('org_slug', types.key(64), (c) => c.notNull())
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('forms')
        .addColumn('org_slug', types.key(64), (c) => c.notNull())
        .addColumn('id', types.key(64), (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('allowed_origins', 'text', (c) => c.notNull())
        .addColumn('webhooks', 'text', (c) => c.notNull())
        .addColumn('definition_version', 'integer')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
        .addPrimaryKeyConstraint('forms_pk', ['org_slug', 'id'])
        .execute();
      await db.schema
        .createTable('definitions')
        .addColumn('org_slug', types.key(64), (c) => c.notNull())
        .addColumn('form_id', types.key(64), (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('definition', 'text', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addPrimaryKeyConstraint('definitions_pk', ['org_slug', 'form_id', 'version'])
        .execute();
      await db.schema
        .createTable('submissions')
        .addColumn('id', types.key(40), (c) => c.primaryKey())
        .addColumn('org_slug', types.key(64), (c) => c.notNull())
        .addColumn('form_id', types.key(64), (c) => c.notNull())
        .addColumn('received_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('read', 'integer', (c) => c.notNull())
        .addColumn('spam', 'integer', (c) => c.notNull())
        .addColumn('preview', 'text', (c) => c.notNull())
        .addColumn('answers', 'text', (c) => c.notNull())
        .addColumn('submit_fields', 'text')
        .addColumn('origin', 'text')
        .addColumn('referer', 'text')
        .addColumn('user_agent', 'text')
        .addColumn('ip', 'varchar(64)', (c) => c.notNull())
        .addColumn('body', types.binary, (c) => c.notNull())
        .addColumn('definition_version', 'integer')
        .execute();
      await db.schema
        .createIndex('submissions_form_idx')
        .on('submissions')
        .columns(['org_slug', 'form_id', 'id'])
        .execute();
      await db.schema
        .createIndex('submissions_org_idx')
        .on('submissions')
        .columns(['org_slug', 'id'])
        .execute();
      await db.schema
        .createTable('deliveries')
        .addColumn('id', types.key(40), (c) => c.primaryKey())
        .addColumn('submission_id', types.key(40), (c) => c.notNull())
        .addColumn('org_slug', types.key(64), (c) => c.notNull())
        .addColumn('form_id', types.key(64), (c) => c.notNull())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('target', 'text', (c) => c.notNull())
        .addColumn('webhook_secret', 'text')
        .addColumn('push_subscription_id', types.key(40))
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('round_attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
        .addColumn('last_status', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('delivered_at', 'varchar(32)')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('deliveries_due_idx')
        .on('deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute();
      await db.schema
        .createIndex('deliveries_submission_idx')
        .on('deliveries')
        .column('submission_id')
        .execute();
      await db.schema
        .createTable('delivery_attempts')
        .addColumn('id', types.serial, (c) =>
          types.serial === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey(),
        )
        .addColumn('delivery_id', types.key(40), (c) => c.notNull())
        .addColumn('attempted_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .execute();
      await db.schema
        .createIndex('delivery_attempts_delivery_idx')
        .on('delivery_attempts')
        .column('delivery_id')
        .execute();
      await db.schema
        .createTable('push_subscriptions')
        .addColumn('id', types.key(40), (c) => c.primaryKey())
        .addColumn('org_slug', types.key(64), (c) => c.notNull())
        .addColumn('endpoint', 'text', (c) => c.notNull())
        .addColumn('p256dh', 'text', (c) => c.notNull())
        .addColumn('auth', 'text', (c) => c.notNull())
        .addColumn('expiration_time', 'bigint')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addUniqueConstraint('push_subscriptions_endpoint_uq', ['org_slug', 'endpoint'])
        .execute();
    },
  };
}

// What several instances on one database share: delivery leases (docs/forms.md#several-instances),
// settings such as the VAPID key pair, and the ingest rate limit's counters.
function sharedInstances(types: SqlTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('deliveries').addColumn('lease_owner', types.key(40)).execute();
      await db.schema.alterTable('deliveries').addColumn('lease_until', 'bigint').execute();
      await db.schema
        .createTable('settings')
        .addColumn('key', types.key(64), (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('rate_limits')
        .addColumn('key', 'varchar(200)', (c) => c.notNull())
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('rate_limits_pk', ['key', 'window_start'])
        .execute();
    },
  };
}

// Where a plain HTML post lands after it is stored (docs/forms.md#plain-html-posts).
function redirectUrl(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('forms').addColumn('redirect_url', 'text').execute();
    },
  };
}

// How many days a form keeps its submissions (docs/forms.md#retention); null keeps them.
function retentionDays(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('forms').addColumn('retention_days', 'integer').execute();
    },
  };
}

// docs/forms.md#webhooks: each attempt keeps what it came to and the first bytes of the answer,
// test sends are deliveries of their own, and a webhook's log is read by its target, newest first.
function webhookLog(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('delivery_attempts').addColumn('outcome', 'varchar(16)').execute();
      await db.schema.alterTable('delivery_attempts').addColumn('response', 'text').execute();
      await db.schema
        .alterTable('deliveries')
        .addColumn('test', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('deliveries_target_idx')
        .on('deliveries')
        .columns(['org_slug', 'form_id', 'target', 'id'])
        .execute();
    },
  };
}

// Who gets an email notice of each new submission (docs/forms.md#email-notices): a JSON array.
function notify(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('forms')
        .addColumn('notify', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
    },
  };
}

// docs/forms.md#spam: a form's spam protection, and the proof-of-work challenges already used
// (kept until they expire, so a solution counts once across every instance on the database).
function spamProtection(types: SqlTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('forms')
        .addColumn('spam_protection', 'varchar(16)', (c) => c.notNull().defaultTo('honeypot'))
        .execute();
      await db.schema
        .createTable('used_challenges')
        .addColumn('signature', types.key(128), (c) => c.primaryKey())
        .addColumn('claim', types.key(40), (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('used_challenges_expires_idx')
        .on('used_challenges')
        .column('expires_at')
        .execute();
    },
  };
}

// docs/forms.md#first-run-and-setup-links: one-time setup codes, kept as their hashes until used or
// expired, in the database so that any instance sharing it accepts a link another one made.
function setupCodes(types: SqlTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('setup_codes')
        .addColumn('code_hash', types.key(64), (c) => c.primaryKey())
        .addColumn('first_run', 'integer', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}

// docs/forms.md#file-uploads: the keys of a submission's stored files, beside its answers.
function submissionFiles(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('submissions').addColumn('files', 'text').execute();
    },
  };
}

export function migrationProvider(types: SqlTypes): MigrationProvider {
  return {
    getMigrations: () =>
      Promise.resolve({
        '0001-initial': initial(types),
        '0002-shared-instances': sharedInstances(types),
        '0003-redirect-url': redirectUrl(),
        '0004-retention-days': retentionDays(),
        '0006-spam-protection': spamProtection(types),
        '0005-notify': notify(),
        '0007-webhook-log': webhookLog(),
        '0008-setup-codes': setupCodes(types),
        '0009-submission-files': submissionFiles(),
      }),
  };
}

/**
 * Applies every migration not applied yet; on failure closes `db` and throws. On PostgreSQL the
 * Migrator holds an advisory lock, so instances starting together migrate once.
 */
export async function migrateToLatest(db: Kysely<Database>, types: SqlTypes): Promise<void> {
  const { error } = await new Migrator({
    db,
    provider: migrationProvider(types),
  }).migrateToLatest();
  if (error) {
    await db.destroy();
    throw error instanceof Error ? error : new Error('migration failed');
  }
}
