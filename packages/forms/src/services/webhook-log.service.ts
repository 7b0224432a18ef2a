import type { FormStore } from '../store/forms.store.js';
import type {
  AttemptOutcomeName,
  DeliveryRow,
  LoggedDelivery,
  Outbox,
} from '../store/outbox/outbox.js';
import { newDelivery } from '../store/outbox/tables.js';
import type { SubmissionStore } from '../store/submissions.store.js';
import { webhookPayload } from '../store/webhook-payload.js';
import type { WebhookDeliveryAnswer } from '../wire/webhook-deliveries.js';
import type { AttemptResult } from './delivery/outbound-http.js';
import type { WebhookAttempt } from './delivery/webhook-sender.js';
import { existingForm } from './existing-form.js';
import { SAMPLE_ID_PREFIX, sampleRecord } from './webhook-sample.js';
import { formsErrors } from '../errors.js';

/** One delivery to a webhook, with its attempts newest first (its wire shape). */
export type WebhookDeliveryView = WebhookDeliveryAnswer;

/** docs/forms.md#webhooks: `limit` defaults to 20, at most 100 (each delivery brings its log). */
const pageLimit = (limit: number | undefined) => Math.min(limit ?? 20, 100);

function knownOutcome(outcome: string | null, status: number | null): AttemptOutcomeName {
  if (
    outcome === 'delivered' ||
    outcome === 'retrying' ||
    outcome === 'failed' ||
    outcome === 'dropped'
  ) {
    return outcome;
  }
  // Attempts recorded before outcomes were: 2xx was a delivery, anything else a failed attempt.
  return status !== null && status >= 200 && status < 300 ? 'delivered' : 'failed';
}

function toView({ delivery: d, attempts }: LoggedDelivery): WebhookDeliveryView {
  return {
    id: d.id,
    submissionId: d.submissionId.startsWith(SAMPLE_ID_PREFIX) ? null : d.submissionId,
    test: d.test === 1,
    target: d.target,
    status: d.status,
    attempts: d.attempts,
    createdAt: d.createdAt,
    deliveredAt: d.deliveredAt,
    nextAttemptAt: d.status === 'pending' ? new Date(Number(d.nextAttemptAt)).toISOString() : null,
    attemptLog: attempts.map((a) => ({
      attemptedAt: a.attemptedAt,
      outcome: knownOutcome(a.outcome, a.status),
      status: a.status,
      durationMs: a.durationMs,
      error: a.error,
      response: a.response,
    })),
  };
}

export interface WebhookLogDeps {
  forms: FormStore;
  outbox: Outbox;
  submissions: Pick<SubmissionStore, 'latest'>;
  /** One signed webhook attempt under the address policy: the delivery worker's own sender. */
  send: (row: WebhookAttempt) => Promise<AttemptResult>;
  /** Why the address policy would refuse a target now, or null (OutboundHttp.targetRefusal). */
  targetRefusal: (url: string) => Promise<string | null>;
  newId: (prefix: string) => string;
  now: () => number;
  /** Wakes the delivery worker after a redeliver. */
  kick: () => void;
}

/**
 * A webhook's delivery log, a test send and the redeliver of one delivery (docs/forms.md#webhooks,
 * the per-webhook view of the inbox).
 */
export class WebhookLogService {
  constructor(private readonly deps: WebhookLogDeps) {}

  /** Whether deliveries to `url` would pass the address policy, and if not, why and how to allow. */
  async checkTarget(
    url: string,
  ): Promise<{ url: string; deliverable: boolean; problem: string | null }> {
    const problem = await this.deps.targetRefusal(url);
    return { url, deliverable: problem === null, problem };
  }

  /** The form's deliveries to `url`, newest first; `before` (a delivery id) pages back. */
  async list(
    org: string,
    form: string,
    url: string,
    options: { limit?: number | undefined; before?: string | undefined },
  ): Promise<WebhookDeliveryView[]> {
    await existingForm(this.deps.forms, org, form);
    const page = await this.deps.outbox.logPage(
      org,
      form,
      url,
      pageLimit(options.limit),
      options.before,
    );
    return page.map(toView);
  }

  /**
   * Sends a test to one of the form's webhooks now and answers what came of it: the form's latest
   * submission, or a sample made from its definition, as `submission.test`, signed like every
   * delivery and under the same address policy. Recorded as a delivery of its own, not retried.
   */
  async sendTest(org: string, form: string, url: string): Promise<WebhookDeliveryView> {
    const found = await existingForm(this.deps.forms, org, form);
    const hook = found.webhooks.find((h) => h.url === url);
    if (!hook) throw formsErrors.error('WEBHOOK_NOT_OF_FORM', { org, form });
    const now = this.deps.now();
    const latest = await this.deps.submissions.latest(org, form);
    let submissionId: string;
    let data: unknown;
    if (latest) {
      submissionId = latest.id;
      data = (JSON.parse(webhookPayload(latest)) as { data: unknown }).data;
    } else {
      submissionId = this.deps.newId(SAMPLE_ID_PREFIX.slice(0, -1));
      const current = await this.deps.forms.definition(org, form);
      data = sampleRecord({
        id: submissionId,
        org,
        form,
        definition: current?.definition,
        definitionVersion: current?.version ?? null,
        now,
      });
    }
    const payload = JSON.stringify({
      type: 'submission.test',
      timestamp: new Date(now).toISOString(),
      data,
    });
    const createdAt = new Date(now).toISOString();
    const row = newDelivery(
      {
        kind: 'webhook',
        submissionId,
        orgSlug: org,
        formId: form,
        target: hook.url,
        webhookSecret: hook.secret,
        pushSubscriptionId: null,
        payload,
        test: true,
      },
      now,
      createdAt,
      this.deps.newId,
    );
    const t0 = performance.now();
    let result: AttemptResult;
    try {
      result = await this.deps.send({
        id: row.id,
        payload,
        target: hook.url,
        webhookSecret: hook.secret,
      });
    } catch (err) {
      result = { ok: false, status: null, error: (err as Error).message };
    }
    const durationMs = Math.round(performance.now() - t0);
    const finished = this.deps.now();
    // A test is not retried: its answer is what the person asked for. Redeliver sends it again.
    const status: DeliveryRow['status'] = result.ok ? 'delivered' : 'failed';
    const deliveredAt = result.ok ? new Date(finished).toISOString() : null;
    await this.deps.outbox.insertAttempted(row, {
      attemptedAt: createdAt,
      status: result.status,
      durationMs,
      error: result.error,
      response: result.response ?? null,
      next: { status, roundAttempts: 1, nextAttemptAt: finished, deliveredAt },
    });
    const stored = await this.deps.outbox.logged(org, form, row.id);
    if (!stored) throw new Error('test delivery not found after it was stored');
    return toView(stored);
  }

  /** Queues one delivery of the form again, from the start of the retry schedule. */
  async redeliver(org: string, form: string, id: string): Promise<{ id: string; queued: number }> {
    await existingForm(this.deps.forms, org, form);
    const queued = await this.deps.outbox.requeue(
      { orgSlug: org, formId: form, id },
      this.deps.now(),
    );
    // Nothing queued: a push whose subscription is gone stays dropped.
    if (queued === 0) {
      const found = await this.deps.outbox.logged(org, form, id);
      throw formsErrors.error(found ? 'DELIVERY_DROPPED' : 'DELIVERY_NOT_FOUND', { id });
    }
    this.deps.kick();
    return { id, queued: 1 };
  }
}
