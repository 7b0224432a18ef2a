import type { Challenge } from 'altcha-lib';
import { createIdGenerator } from '../ids.js';
import type { FormStore, GateForm } from '../store/forms.store.js';
import type { PushStore } from '../store/push.store.js';
import type { SubmissionStore, SubmissionSummary } from '../store/submissions.store.js';
import { existingForm } from './existing-form.js';
import { fanOut } from './ingest.service.js';
import { powPayloadOf, type PowVerdict, type ProofOfWork } from './proof-of-work.service.js';
import { formsErrors } from '../errors.js';

export type { GateForm } from '../store/forms.store.js';
export interface SpamDeps {
  forms: FormStore;
  submissions: SubmissionStore;
  push: PushStore;
  proofOfWork: ProofOfWork;
  /** Wakes the delivery worker once "not spam" wrote outbox rows. */
  kick: () => void;
  now: () => number;
}

/** docs/forms.md#submissions: `limit` defaults to 50; larger values are capped at 500. */
const feedLimit = (limit: number | undefined) => Math.min(limit ?? 50, 500);

/**
 * Spam without a third party (docs/forms.md#spam): proof-of-work challenges for "pow" forms, the
 * check ingest makes before it writes, the spam feed and "not spam".
 */
export class SpamService {
  private readonly newId: (prefix: string) => string;

  constructor(private readonly deps: SpamDeps) {
    this.newId = createIdGenerator(deps.now);
  }

  /** A challenge bound to this form; 409 for a form that does not ask for proof of work. */
  async challenge(form: GateForm, org: string): Promise<Challenge> {
    if (form.spamProtection !== 'pow') {
      throw formsErrors.error('POW_NOT_USED', { org, form: form.id });
    }
    return this.deps.proofOfWork.challenge(org, form.id);
  }

  /**
   * Ingest's proof-of-work check for a "pow" form (undefined for any other): the solution the
   * body carries, verified and used up. `formFields` is a plain HTML post's fields as urlencoded
   * text (undefined for JSON).
   */
  async checkSubmission(
    org: string,
    form: GateForm,
    raw: Buffer,
    formFields: string | undefined,
  ): Promise<'verified' | 'refused' | undefined> {
    if (form.spamProtection !== 'pow') return undefined;
    const payload = powPayloadOf(
      raw,
      formFields === undefined ? undefined : { fields: formFields },
    );
    const verdict: PowVerdict = await this.deps.proofOfWork.verify(org, form.id, payload);
    return verdict === 'verified' ? 'verified' : 'refused';
  }

  /** One form's spam, newest first (404: no such form). */
  async feed(
    org: string,
    form: string,
    options: { limit?: number | undefined; before?: string | undefined },
  ): Promise<SubmissionSummary[]> {
    await existingForm(this.deps.forms, org, form);
    return this.deps.submissions.feed({
      org,
      form,
      limit: feedLimit(options.limit),
      includeSpam: true,
      onlySpam: true,
      ...(options.before !== undefined ? { before: options.before } : {}),
    });
  }

  /**
   * Stores a spam submission as normal and fans it out as ingest would have, to the form's
   * webhooks and email recipients and the organisation's push subscriptions as they are now, in
   * the same transaction. Answers how many deliveries were queued (0 when it was not spam).
   */
  async notSpam(org: string, form: string, id: string): Promise<number> {
    const found = await this.deps.forms.get(org, form);
    if (!found) throw formsErrors.error('SUBMISSION_NOT_FOUND', { id });
    const pushes = await this.deps.push.ofOrgCached(org);
    const now = this.deps.now();
    const deliveries = fanOut(id, org, found, pushes, now, new Date(now).toISOString(), this.newId);
    const queued = await this.deps.submissions.markNotSpam(org, form, id, deliveries);
    if (queued === undefined) throw formsErrors.error('SUBMISSION_NOT_FOUND', { id });
    if (queued > 0) this.deps.kick();
    return queued;
  }
}
