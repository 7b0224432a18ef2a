import { choiceLabels, type ChoiceLabels } from './choice-labels.js';
import type { Kysely, Transaction } from 'kysely';
import type { Condition, LogicDefinition } from '../logic/show-if.js';
import { canonicalJson } from './canonical-json.js';
import { eraseDeliveries } from './outbox/erase.js';
import { ReadCache } from './read-cache.js';
import { fileKeys } from './submissions.store.js';
import type { Database, FormTable, SpamProtection } from './schema.js';

export interface Webhook {
  url: string;
  secret: string;
}

export interface Form {
  id: string;
  name: string;
  description: string;
  allowedOrigins: string[];
  webhooks: Webhook[];
  /** Where a plain HTML post is sent after it is stored; null: the built-in thanks page. */
  redirectUrl: string | null;
  /** Submissions older than this many days are deleted; null keeps them. */
  retentionDays: number | null;
  /** Addresses that get an email notice of each new submission (docs/forms.md#email-notices). */
  notify: string[];
  /** docs/forms.md#spam: the honeypot alone, or a proof-of-work solution as well. */
  spamProtection: SpamProtection;
  definitionVersion: number | null;
  createdAt: string;
  updatedAt: string;
}

/** A form as the public gate and ingest see it: with what its current definition allows. */
export interface GateForm extends Form {
  /** The logicalNames whose answer may be an array: the multiple-choice questions. */
  arrayAnswers: readonly string[];
  /** What ingest applies of the current definition's rules; null when it has none. */
  logic: IngestLogic | null;
  /** The `file` questions by logicalName, with their limits (docs/forms.md#file-uploads). */
  uploads: Readonly<Record<string, UploadRule>>;
  /** The choice questions' option labels: the feed preview shows choices by them. */
  choiceLabels: ChoiceLabels;
}

/** A `file` question's limits as the definition states them (docs/definition-format.md). */
export interface UploadRule {
  /** MIME types (`image/png`, `image/*`) and extensions (`.pdf`); empty takes any type. */
  accept: string[];
  /** null: the server's UPLOAD_MAX_BYTES. */
  maxBytes: number | null;
  maxFiles: number;
}

/**
 * The current definition's steps, conditions and required questions, as ingest applies them
 * (docs/definition-format.md#steps-and-conditions): a plain object, so it crosses to the writer
 * thread.
 */
export interface IngestLogic extends LogicDefinition {
  /** The logicalNames of the required questions (required only while shown). */
  required: string[];
  /** Whether answers to hidden questions are kept under `submitFields.hiddenAnswers`. */
  keepHiddenAnswers: boolean;
}

/** What ingest needs of the form (a plain object, so it can cross to the writer thread). */
export type IngestForm = Pick<
  GateForm,
  | 'id'
  | 'definitionVersion'
  | 'webhooks'
  | 'arrayAnswers'
  | 'notify'
  | 'logic'
  | 'uploads'
  | 'choiceLabels'
>;

/** The rules of a stored definition that ingest applies, or null when there are none. */
function ingestLogic(definition: Record<string, unknown>): IngestLogic | null {
  const questions = (Array.isArray(definition.questions) ? definition.questions : []) as {
    logicalName: string;
    required?: boolean;
    showIf?: Condition;
  }[];
  const pages = definition.pages as IngestLogic['pages'];
  const required = questions.filter((q) => q.required === true).map((q) => q.logicalName);
  const conditional =
    questions.some((q) => q.showIf !== undefined) || (pages ?? []).some((p) => p.showIf);
  if (!conditional && required.length === 0) return null;
  return {
    questions: questions.map((q) =>
      q.showIf === undefined
        ? { logicalName: q.logicalName }
        : { logicalName: q.logicalName, showIf: q.showIf },
    ),
    ...(conditional && pages
      ? {
          pages: pages.map((p) => ({
            questions: [...p.questions],
            ...(p.showIf ? { showIf: p.showIf } : {}),
          })),
        }
      : {}),
    required,
    keepHiddenAnswers: definition.keepHiddenAnswers === true,
  };
}

/** docs/definition-format.md: only a `choice` question with `multiple: true` answers an array. */
function multipleChoiceNames(definition: Record<string, unknown>): string[] {
  const questions = Array.isArray(definition.questions) ? (definition.questions as unknown[]) : [];
  return questions.flatMap((q) => {
    const { type, multiple, logicalName } = (q ?? {}) as Record<string, unknown>;
    return type === 'choice' && multiple === true && typeof logicalName === 'string'
      ? [logicalName]
      : [];
  });
}

/** The definition's `file` questions and their limits. */
function uploadRules(definition: Record<string, unknown>): Record<string, UploadRule> {
  const questions = Array.isArray(definition.questions) ? (definition.questions as unknown[]) : [];
  const rules: Record<string, UploadRule> = {};
  for (const q of questions) {
    const { type, logicalName, accept, maxBytes, maxFiles } = (q ?? {}) as Record<string, unknown>;
    if (type !== 'file' || typeof logicalName !== 'string') continue;
    rules[logicalName] = {
      accept: Array.isArray(accept) ? (accept as string[]) : [],
      maxBytes: typeof maxBytes === 'number' ? maxBytes : null,
      maxFiles: typeof maxFiles === 'number' ? maxFiles : 1,
    };
  }
  return rules;
}

export interface FormListItem {
  id: string;
  name: string;
  description: string;
  submissions: number;
  unread: number;
  lastSubmissionAt: string | null;
  createdAt: string;
  updatedAt: string;
  definitionVersion: number | null;
}

export interface FormWrite {
  name: string;
  description: string;
  allowedOrigins: string[];
  webhooks: Webhook[];
  redirectUrl: string | null;
  retentionDays: number | null;
  notify: string[];
  spamProtection: SpamProtection;
  /**
   * Undefined leaves the stored definition and its version untouched
   * (docs/forms.md#forms-and-definitions).
   */
  definition: object | undefined;
}

function toForm(row: FormTable): Form {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    allowedOrigins: JSON.parse(row.allowedOrigins) as string[],
    webhooks: JSON.parse(row.webhooks) as Webhook[],
    redirectUrl: row.redirectUrl,
    retentionDays: row.retentionDays,
    notify: JSON.parse(row.notify) as string[],
    spamProtection: row.spamProtection,
    definitionVersion: row.definitionVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Forms and their versioned definitions. */
export class FormStore {
  private readonly cache = new ReadCache<GateForm | undefined>(2_000);

  constructor(private readonly db: Kysely<Database>) {}

  /** Drops the cached gate settings once a write has committed. */
  private async invalidating<T>(orgSlug: string, id: string, write: Promise<T>): Promise<T> {
    try {
      return await write;
    } finally {
      this.cache.invalidate(`${orgSlug}\n${id}`);
    }
  }

  /** `getCached`'s answer when it is in the cache, synchronously; else undefined. */
  peekCached(orgSlug: string, id: string): { value: GateForm | undefined } | undefined {
    return this.cache.peek(`${orgSlug}\n${id}`);
  }

  /** The gate's view of a form through a short cache: the ingest path (see ReadCache). */
  async getCached(orgSlug: string, id: string): Promise<GateForm | undefined> {
    return this.cache.get(`${orgSlug}\n${id}`, async () => {
      const form = await this.get(orgSlug, id);
      if (!form) return undefined;
      const current =
        form.definitionVersion === null
          ? undefined
          : await this.definition(orgSlug, id, form.definitionVersion);
      const arrayAnswers = current ? multipleChoiceNames(current.definition) : [];
      const logic = current ? ingestLogic(current.definition) : null;
      const uploads = current ? uploadRules(current.definition) : {};
      const labels = choiceLabels(current?.definition);
      return { ...form, arrayAnswers, logic, uploads, choiceLabels: labels };
    });
  }

  async list(orgSlug: string): Promise<FormListItem[]> {
    const rows = await this.db
      .selectFrom('forms as f')
      .select(['f.id', 'f.name', 'f.description', 'f.createdAt', 'f.updatedAt'])
      .select('f.definitionVersion')
      .select((eb) => [
        eb
          .selectFrom('submissions as s')
          .select(eb.fn.countAll<number | string>().as('n'))
          .whereRef('s.orgSlug', '=', 'f.orgSlug')
          .whereRef('s.formId', '=', 'f.id')
          .where('s.spam', '=', 0)
          .as('submissions'),
        eb
          .selectFrom('submissions as s')
          .select(eb.fn.countAll<number | string>().as('n'))
          .whereRef('s.orgSlug', '=', 'f.orgSlug')
          .whereRef('s.formId', '=', 'f.id')
          .where('s.spam', '=', 0)
          .where('s.read', '=', 0)
          .as('unread'),
        eb
          .selectFrom('submissions as s')
          .select((sb) => sb.fn.max('s.receivedAt').as('m'))
          .whereRef('s.orgSlug', '=', 'f.orgSlug')
          .whereRef('s.formId', '=', 'f.id')
          .where('s.spam', '=', 0)
          .as('lastSubmissionAt'),
      ])
      .where('f.orgSlug', '=', orgSlug)
      .orderBy('f.id')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      description: r.description,
      submissions: Number(r.submissions ?? 0),
      unread: Number(r.unread ?? 0),
      lastSubmissionAt: r.lastSubmissionAt ?? null,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      definitionVersion: r.definitionVersion,
    }));
  }

  async get(orgSlug: string, id: string): Promise<Form | undefined> {
    const row = await this.db
      .selectFrom('forms')
      .selectAll()
      .where('orgSlug', '=', orgSlug)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toForm(row) : undefined;
  }

  /** Creates or replaces the form's metadata; versions the definition when it changed. */
  async put(orgSlug: string, id: string, write: FormWrite, now: string): Promise<Form> {
    const values = {
      name: write.name,
      description: write.description,
      allowedOrigins: JSON.stringify(write.allowedOrigins),
      webhooks: JSON.stringify(write.webhooks),
      redirectUrl: write.redirectUrl,
      retentionDays: write.retentionDays,
      notify: JSON.stringify(write.notify),
      spamProtection: write.spamProtection,
      updatedAt: now,
    };
    return this.invalidating(
      orgSlug,
      id,
      this.db.transaction().execute(async (trx) => {
        // Write first, read after: the insert (a no-op when the form exists) and the update take
        // the form's row lock, so two PUTs of one form on PostgreSQL cannot both read the same
        // definition version and both store the next one.
        await trx
          .insertInto('forms')
          .values({ ...values, orgSlug, id, definitionVersion: null, createdAt: now })
          .onConflict((oc) => oc.columns(['orgSlug', 'id']).doNothing())
          .execute();
        await trx
          .updateTable('forms')
          .set(values)
          .where('orgSlug', '=', orgSlug)
          .where('id', '=', id)
          .execute();
        return this.versionAndRead(trx, orgSlug, id, write.definition, now);
      }),
    );
  }

  /**
   * Changes only the fields `patch` names (docs/forms.md#forms-and-definitions: PATCH); undefined
   * when the form does not exist. The definition is versioned as in `put`.
   */
  async patch(
    orgSlug: string,
    id: string,
    patch: Partial<FormWrite>,
    now: string,
  ): Promise<Form | undefined> {
    const values = {
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.allowedOrigins !== undefined
        ? { allowedOrigins: JSON.stringify(patch.allowedOrigins) }
        : {}),
      ...(patch.webhooks !== undefined ? { webhooks: JSON.stringify(patch.webhooks) } : {}),
      ...(patch.redirectUrl !== undefined ? { redirectUrl: patch.redirectUrl } : {}),
      ...(patch.retentionDays !== undefined ? { retentionDays: patch.retentionDays } : {}),
      ...(patch.notify !== undefined ? { notify: JSON.stringify(patch.notify) } : {}),
      ...(patch.spamProtection !== undefined ? { spamProtection: patch.spamProtection } : {}),
      updatedAt: now,
    };
    return this.invalidating(
      orgSlug,
      id,
      this.db.transaction().execute(async (trx) => {
        // The update takes the row lock first, as in `put`.
        const updated = await trx
          .updateTable('forms')
          .set(values)
          .where('orgSlug', '=', orgSlug)
          .where('id', '=', id)
          .executeTakeFirst();
        if (updated.numUpdatedRows === 0n) return undefined;
        return this.versionAndRead(trx, orgSlug, id, patch.definition, now);
      }),
    );
  }

  /** The end of a form write: the definition versioned when given, then the form as stored. */
  private async versionAndRead(
    trx: Transaction<Database>,
    orgSlug: string,
    id: string,
    definition: object | undefined,
    now: string,
  ): Promise<Form> {
    if (definition !== undefined) {
      const { definitionVersion } = await this.lockedVersion(trx, orgSlug, id);
      await this.storeDefinition(trx, orgSlug, id, definitionVersion, definition, now);
    }
    const row = await trx
      .selectFrom('forms')
      .selectAll()
      .where('orgSlug', '=', orgSlug)
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return toForm(row);
  }

  /** Stores a definition for an existing form; the version it is stored under. */
  async putDefinition(
    orgSlug: string,
    id: string,
    definition: object,
    now: string,
  ): Promise<number | undefined> {
    return this.invalidating(
      orgSlug,
      id,
      this.db.transaction().execute(async (trx) => {
        const locked = await trx
          .updateTable('forms')
          .set((eb) => ({ updatedAt: eb.ref('updatedAt') }))
          .where('orgSlug', '=', orgSlug)
          .where('id', '=', id)
          .executeTakeFirst();
        if (locked.numUpdatedRows === 0n) return undefined;
        const { definitionVersion } = await this.lockedVersion(trx, orgSlug, id);
        return this.storeDefinition(trx, orgSlug, id, definitionVersion, definition, now);
      }),
    );
  }

  /** The form's current version, read after this transaction wrote (and so locked) its row. */
  private async lockedVersion(trx: Transaction<Database>, orgSlug: string, id: string) {
    return trx
      .selectFrom('forms')
      .select('definitionVersion')
      .where('orgSlug', '=', orgSlug)
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  }

  // docs/forms.md#forms-and-definitions: an unchanged definition is not re-versioned (compared
  // with object keys in any order).
  private async storeDefinition(
    trx: Transaction<Database>,
    orgSlug: string,
    formId: string,
    current: number | null,
    definition: object,
    now: string,
  ): Promise<number> {
    if (current !== null) {
      const latest = await trx
        .selectFrom('definitions')
        .select('definition')
        .where('orgSlug', '=', orgSlug)
        .where('formId', '=', formId)
        .where('version', '=', current)
        .executeTakeFirst();
      if (latest && canonicalJson(JSON.parse(latest.definition)) === canonicalJson(definition)) {
        return current;
      }
    }
    const max = await trx
      .selectFrom('definitions')
      .select((eb) => eb.fn.max<number | string>('version').as('v'))
      .where('orgSlug', '=', orgSlug)
      .where('formId', '=', formId)
      .executeTakeFirst();
    const version = Number(max?.v ?? 0) + 1; // PostgreSQL answers aggregates as strings
    await trx
      .insertInto('definitions')
      .values({ orgSlug, formId, version, definition: JSON.stringify(definition), createdAt: now })
      .execute();
    await trx
      .updateTable('forms')
      .set({ definitionVersion: version, updatedAt: now })
      .where('orgSlug', '=', orgSlug)
      .where('id', '=', formId)
      .execute();
    return version;
  }

  /** A stored definition: the given version, or the current one. */
  async definition(
    orgSlug: string,
    formId: string,
    version?: number,
  ): Promise<{ version: number; definition: Record<string, unknown> } | undefined> {
    let v = version;
    if (v === undefined) {
      const form = await this.get(orgSlug, formId);
      if (form?.definitionVersion == null) return undefined;
      v = form.definitionVersion;
    }
    const row = await this.db
      .selectFrom('definitions')
      .select(['version', 'definition'])
      .where('orgSlug', '=', orgSlug)
      .where('formId', '=', formId)
      .where('version', '=', v)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      version: row.version,
      definition: JSON.parse(row.definition) as Record<string, unknown>,
    };
  }

  /** When each version of a form's definition was saved, newest first. */
  async versions(
    orgSlug: string,
    formId: string,
  ): Promise<{ version: number; createdAt: string }[]> {
    return this.db
      .selectFrom('definitions')
      .select(['version', 'createdAt'])
      .where('orgSlug', '=', orgSlug)
      .where('formId', '=', formId)
      .orderBy('version', 'desc')
      .execute();
  }

  /** Every stored version of a form's definition, oldest first. */
  async allDefinitions(
    orgSlug: string,
    formId: string,
  ): Promise<{ version: number; definition: Record<string, unknown> }[]> {
    const rows = await this.db
      .selectFrom('definitions')
      .select(['version', 'definition'])
      .where('orgSlug', '=', orgSlug)
      .where('formId', '=', formId)
      .orderBy('version')
      .execute();
    return rows.map((r) => ({
      version: r.version,
      definition: JSON.parse(r.definition) as Record<string, unknown>,
    }));
  }

  /**
   * Deletes the form, its definitions, its answers and their deliveries
   * (docs/forms.md#forms-and-definitions): the keys of its submissions' stored files (whose bytes
   * the caller removes once this has committed), or undefined when there is no such form.
   */
  async delete(orgSlug: string, id: string): Promise<string[] | undefined> {
    return this.invalidating(
      orgSlug,
      id,
      this.db.transaction().execute(async (trx) => {
        await eraseDeliveries(trx, { orgSlug, formId: id });
        const submissions = await trx
          .deleteFrom('submissions')
          .where('orgSlug', '=', orgSlug)
          .where('formId', '=', id)
          .returning('files')
          .execute();
        await trx
          .deleteFrom('definitions')
          .where('orgSlug', '=', orgSlug)
          .where('formId', '=', id)
          .execute();
        const r = await trx
          .deleteFrom('forms')
          .where('orgSlug', '=', orgSlug)
          .where('id', '=', id)
          .executeTakeFirst();
        return r.numDeletedRows > 0n ? fileKeys(submissions) : undefined;
      }),
    );
  }
}
