import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { HttpError } from '@havn/shared';
import type { FileBytes } from '../store/file-bytes.js';
import type { FormStore, GateForm } from '../store/forms.store.js';
import {
  SubmissionRefused,
  type GroupCommitWriter,
  type IngestRequest,
} from '../store/group-commit.js';
import type { PushStore } from '../store/push.store.js';
import type { FileAnswer } from '../wire/submissions.js';
import { buildSubmissionWrite, parseUrlencodedBody } from './ingest.service.js';
import type { SpamService } from './spam.service.js';
import { accepts, nameAgrees, sniffType } from './uploads/file-types.js';
import {
  readMultipart,
  type MultipartLimits,
  type ReceivedFile,
} from './uploads/multipart-body.js';
import { formsErrors } from '../errors.js';

export type { GateForm } from '../store/forms.store.js';

/** How an ingest body is read: JSON, or a plain HTML form's (docs/forms.md#plain-html-posts). */
export type BodyKind = 'json' | 'urlencoded' | 'multipart';

export function bodyKind(contentType: string): BodyKind {
  if (contentType.startsWith('multipart/form-data')) return 'multipart';
  if (contentType.startsWith('application/x-www-form-urlencoded')) return 'urlencoded';
  return 'json';
}

// Every refusal is one of ingest's 400s (services/submission-builder.ts), its text filled in.
const refusedAs400 = (err: unknown): never => {
  throw err instanceof SubmissionRefused
    ? new HttpError(400, err.refusal.message, err.refusal.code)
    : err;
};

/** One submission as its request delivered it, for `PublicFormsService.submit`. */
export interface Submission {
  org: string;
  form: GateForm;
  /** The body bytes exactly as received, not parsed yet (JSON and urlencoded bodies). */
  raw: Buffer;
  /** A multipart body, read as it arrives (it may carry files). */
  stream?: Readable | undefined;
  contentType: string;
  origin: string | null;
  referer: string | null;
  userAgent: string | null;
  ip: string;
  now: number;
}

/** What file uploads need (docs/forms.md#file-uploads). */
export interface UploadDeps {
  files: FileBytes;
  limits: MultipartLimits;
  newId: (prefix: string) => string;
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
    private readonly uploads: UploadDeps,
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
    if (!stored) throw formsErrors.error('FORM_HAS_NO_DEFINITION', { org, form });
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
   * with no definition yet (answers are read against it), 415 for a file part that answers no
   * `file` question, 413 past a limit, 400 for a body ingest refuses; nothing is stored on any of
   * them. The body is parsed and checked on the writer thread (SQLite) or just before the commit
   * (PostgreSQL); a body with files on the event loop, where its files are kept before the commit.
   */
  async submit(submission: Submission): Promise<string> {
    const { form, org, contentType, stream, raw: received, ...meta } = submission;
    let raw = received;
    if (form.definitionVersion === null) throw formsErrors.error('FORM_NOT_READY');
    const kind = bodyKind(contentType);
    let formFields: string | undefined;
    let files: ReceivedFile[] = [];
    /** The received files' paths that `keep` moved away. */
    const kept = new Set<string>();
    if (kind === 'multipart') {
      if (!stream) throw new Error('a multipart ingest without its body stream');
      const body = await readMultipart(
        stream,
        contentType,
        form.uploads,
        this.uploads.limits,
        this.uploads.files,
      );
      formFields = body.fields;
      files = body.files;
      raw = body.raw ?? Buffer.from(body.fields);
    }
    try {
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
      const request: IngestRequest = {
        org,
        form,
        raw,
        ...meta,
        pushSubscriptions: this.push.peekOfOrg(org) ?? (await this.push.ofOrgCached(org)),
        ...(kind !== 'json' ? { urlencoded: true } : {}),
        ...(formFields !== undefined ? { formFields } : {}),
        ...(pow !== undefined ? { pow } : {}),
      };
      if (files.length === 0) return await this.writer.ingest(request).catch(refusedAs400);
      return await this.submitWithFiles(request, files, kept);
    } finally {
      // Kept files were moved away; whatever is left was refused or never answered.
      await Promise.all(
        files.filter((f) => !kept.has(f.path)).map((f) => rm(f.path, { force: true })),
      );
    }
  }

  /**
   * docs/forms.md#file-uploads: each file's type checked by its bytes, the rows built here, the
   * files the answers keep made durable, and only then the submission committed. A crash
   * between the two leaves files no submission names, which the orphan sweep removes.
   */
  private async submitWithFiles(
    request: IngestRequest,
    received: ReceivedFile[],
    kept: Set<string>,
  ): Promise<string> {
    const { files, newId } = this.uploads;
    const byQuestion: Record<string, FileAnswer[]> = {};
    const incoming = new Map<string, ReceivedFile & { type: string }>();
    for (const f of received) {
      const answer = await checkedFile(f, request.form.uploads[f.question]?.accept ?? [], newId);
      (byQuestion[f.question] ??= []).push(answer);
      incoming.set(answer.id, { ...f, type: answer.type });
    }
    const { id, write } = buildSubmissionWrite(
      { ...request, files: byQuestion },
      parseUrlencodedBody(Buffer.from(request.formFields ?? ''), request.form.arrayAnswers),
      newId,
    );
    const keys = JSON.parse(write.submission.files ?? '[]') as string[];
    try {
      await Promise.all(
        keys.map((key) => {
          const f = incoming.get(key.slice(key.indexOf('/') + 1));
          if (!f) throw new Error(`no received file for ${key}`);
          return files.keep(key, f.path, f.type, f.size).then(() => {
            kept.add(f.path);
          });
        }),
      );
      await this.writer.write(write);
    } catch (err) {
      await files.remove(keys).catch(() => undefined);
      throw err;
    }
    return id;
  }
}

/**
 * The file's answer once its bytes pass `accept` and agree with its name; 400 naming the
 * question otherwise.
 */
async function checkedFile(
  f: ReceivedFile,
  accept: readonly string[],
  newId: (prefix: string) => string,
): Promise<FileAnswer> {
  const type = await sniffType(f.head, f.name);
  if (!accepts(accept, type)) {
    throw formsErrors.error('FILE_TYPE_NOT_ACCEPTED', {
      question: f.question,
      name: f.name,
      type: type.mime,
      accept: accept.join(', '),
    });
  }
  if (!nameAgrees(f.name, type)) {
    throw formsErrors.error('FILE_TYPE_MISMATCH', {
      question: f.question,
      name: f.name,
      type: type.mime,
    });
  }
  return { name: f.name, size: f.size, type: type.mime, sha256: f.sha256, id: newId('fil') };
}
