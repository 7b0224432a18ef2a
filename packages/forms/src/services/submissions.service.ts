import type { Readable } from 'node:stream';
import { isRecord } from '@havn/shared';
import type { FileBytes } from '../store/file-bytes.js';
import type { FileAnswer } from '../wire/submissions.js';
import { isFileList } from './ingest.service.js';
import type { DeliveryView, Outbox } from '../store/outbox/outbox.js';
import type { FormStore } from '../store/forms.store.js';
import type {
  SubmissionRecord,
  SubmissionStore,
  SubmissionSummary,
} from '../store/submissions.store.js';
import { existingForm } from './existing-form.js';
import { formsErrors } from '../errors.js';

export type { DeliveryView } from '../store/outbox/outbox.js';
export type { SubmissionSummary } from '../store/submissions.store.js';

/** A full record as the API answers it: the raw body as text, with its deliveries. */
export type SubmissionView = Omit<SubmissionRecord, 'body'> & {
  body: string;
  deliveries: DeliveryView[];
};

export interface FeedOptions {
  limit?: number | undefined;
  before?: string | undefined;
  includeSpam?: boolean | undefined;
}

/** docs/forms.md#submissions: `limit` defaults to 50; larger values are capped at 500. */
const feedLimit = (limit: number | undefined) => Math.min(limit ?? 50, 500);

/** Feeds, full records, the read flag, erasure and redelivery (docs/forms.md#submissions). */
export class SubmissionsService {
  constructor(
    private readonly submissions: SubmissionStore,
    private readonly forms: FormStore,
    private readonly deliveries: Outbox,
    /** Wakes the delivery worker after a redeliver. */
    private readonly kick: () => void,
    private readonly now: () => number,
    private readonly files: FileBytes,
  ) {}

  /** Newest first; one form's, or the organisation's when `form` is undefined (404: no form). */
  async feed(
    org: string,
    form: string | undefined,
    options: FeedOptions,
  ): Promise<SubmissionSummary[]> {
    if (form !== undefined) await existingForm(this.forms, org, form);
    return this.submissions.feed({
      org,
      ...(form !== undefined ? { form } : {}),
      limit: feedLimit(options.limit),
      includeSpam: options.includeSpam ?? false,
      before: options.before,
    });
  }

  async record(org: string, form: string, id: string): Promise<SubmissionView> {
    const record = await this.submissions.get(org, form, id);
    if (!record) throw formsErrors.error('SUBMISSION_NOT_FOUND', { id });
    const deliveries = await this.deliveries.ofSubmission(id);
    return { ...record, body: record.body.toString('utf8'), deliveries };
  }

  async setRead(org: string, form: string, id: string, read: boolean): Promise<void> {
    if (!(await this.submissions.setRead(org, form, id, read))) {
      throw formsErrors.error('SUBMISSION_NOT_FOUND', { id });
    }
  }

  /** Marks every unread submission read (of one form when given; 404 for no such form). */
  async markAllRead(
    org: string,
    form: string | undefined,
    through: string | undefined,
  ): Promise<number> {
    if (form !== undefined) await existingForm(this.forms, org, form);
    return this.submissions.markAllRead(org, form, through);
  }

  /** Erases the submission with its outbox rows, their delivery log and its files' bytes. */
  async erase(org: string, form: string, id: string): Promise<void> {
    const files = await this.submissions.delete(org, form, id);
    if (!files) throw formsErrors.error('SUBMISSION_NOT_FOUND', { id });
    // After the commit: a crash in between leaves bytes no submission names, which the orphan
    // sweep removes (docs/forms.md#file-uploads).
    await this.files.remove(files);
  }

  /**
   * One of the submission's files (docs/forms.md#file-uploads): its answer and its bytes, or 404
   * for a file the submission's answers do not name.
   */
  async file(
    org: string,
    form: string,
    id: string,
    fileId: string,
  ): Promise<{ file: FileAnswer; stream: Readable; bytes: number }> {
    const record = await this.submissions.get(org, form, id);
    if (!record) throw formsErrors.error('SUBMISSION_NOT_FOUND', { id });
    const hidden = record.submitFields?.hiddenAnswers;
    const file = [
      ...Object.values(record.answers),
      ...(isRecord(hidden) ? Object.values(hidden) : []),
    ]
      .flatMap((v) => (isFileList(v) ? v : []))
      .find((f) => f.id === fileId);
    const bytes = file ? await this.files.read(`${id}/${file.id}`) : undefined;
    if (!file || !bytes) throw formsErrors.error('FILE_NOT_FOUND', { file: fileId, id });
    return { file, ...bytes };
  }

  /** Queues every delivery of the submission again; answers how many. */
  async redeliver(org: string, form: string, id: string): Promise<number> {
    if (!(await this.submissions.get(org, form, id))) {
      throw formsErrors.error('SUBMISSION_NOT_FOUND', { id });
    }
    const queued = await this.deliveries.requeue({ submissionId: id }, this.now());
    this.kick();
    return queued;
  }
}
