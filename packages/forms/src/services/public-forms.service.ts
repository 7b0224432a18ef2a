import { HttpError } from '@havn/shared';
import type { FormStore, GateForm } from '../store/forms.store.js';
import { SubmissionRefused, type GroupCommitWriter } from '../store/group-commit.js';
import type { PushStore } from '../store/push.store.js';
import { multipartFields } from './ingest.service.js';
import type { SpamService } from './spam.service.js';

export type { GateForm } from '../store/forms.store.js';

/** How an ingest body is read: JSON, or a plain HTML form's (docs/forms.md#plain-html-posts). */
export type BodyKind = 'json' | 'urlencoded' | 'multipart';

export function bodyKind(contentType: string): BodyKind {
  if (contentType.startsWith('multipart/form-data')) return 'multipart';
  if (contentType.startsWith('application/x-www-form-urlencoded')) return 'urlencoded';
  return 'json';
}

const refusedAs400 = (err: unknown): never => {
  throw err instanceof SubmissionRefused ? new HttpError(400, err.message) : err;
};

/** One submission as its request delivered it, for `PublicFormsService.submit`. */
export interface Submission {
  org: string;
  form: GateForm;
  /** The body bytes exactly as received, not parsed yet. */
  raw: Buffer;
  contentType: string;
  origin: string | null;
  referer: string | null;
  userAgent: string | null;
  ip: string;
  now: number;
}

/**
 * What the two public endpoints need
 * (docs/forms.md#public-no-token-gated-by-the-forms-allowedorigins): the form the origin gate
 * judges, its public definition, and ingest. The gate's lookups go through a short cache, and
 * `peekGateForm` answers from it without a promise, so the common ingest path stays synchronous
 * up to the commit.
 */
export class PublicFormsService {
  constructor(
    private readonly forms: FormStore,
    private readonly push: PushStore,
    private readonly writer: GroupCommitWriter,
    /** A "pow" form's proof-of-work check before the write (docs/forms.md#spam). */
    private readonly spam?: Pick<SpamService, 'checkSubmission'>,
  ) {}

  /** The gate's form when it is in the cache (`value` undefined: no such form); else undefined. */
  peekGateForm(org: string, form: string): { value: GateForm | undefined } | undefined {
    return this.forms.peekCached(org, form);
  }

  gateForm(org: string, form: string): Promise<GateForm | undefined> {
    return this.forms.getCached(org, form);
  }

  /** The current definition, or 404 for a form that has none yet. */
  async definition(org: string, form: string): Promise<Record<string, unknown>> {
    const stored = await this.forms.definition(org, form);
    if (!stored) throw new HttpError(404, `form ${org}/${form} has no definition yet`);
    return stored.definition;
  }

  /** The current definition for pages outside the API (the thanks page); undefined without one. */
  async currentDefinition(
    org: string,
    form: string,
  ): Promise<{ version: number; definition: Record<string, unknown> } | undefined> {
    return this.forms.definition(org, form);
  }

  /**
   * Stores one submission with its outbox rows; resolves with its id once durable. 409 for a form
   * with no definition yet (answers are read against it), 415 for a file part, 400 for a body
   * ingest refuses; nothing is stored on any of them. The body is parsed and checked on the
   * writer thread (SQLite) or just before the commit (PostgreSQL).
   */
  async submit(submission: Submission): Promise<string> {
    const { form, org, raw, contentType, ...meta } = submission;
    if (form.definitionVersion === null) throw new HttpError(409, 'form has no definition yet');
    const kind = bodyKind(contentType);
    const formFields = kind === 'multipart' ? await multipartFields(raw, contentType) : undefined;
    // Only a "pow" form waits for the check: the honeypot forms' ingest path stays as it was.
    const pow =
      form.spamProtection === 'pow'
        ? await this.spam?.checkSubmission(
            org,
            form,
            raw,
            kind === 'json' ? undefined : (formFields ?? raw.toString('utf8')),
          )
        : undefined;
    return this.writer
      .ingest({
        org,
        form,
        raw,
        ...meta,
        pushSubscriptions: this.push.peekOfOrg(org) ?? (await this.push.ofOrgCached(org)),
        ...(kind !== 'json' ? { urlencoded: true } : {}),
        ...(formFields !== undefined ? { formFields } : {}),
        ...(pow !== undefined ? { pow } : {}),
      })
      .catch(refusedAs400);
  }
}
