// The admin API the inbox calls (docs/forms.md#endpoints), with the organisation token as a
// bearer (docs/forms.md#authentication: a browser never holds the admin token).

// The server's answers, as the forms package declares them (types only: nothing is bundled).
export type {
  DeliveryAnswer as Delivery,
  FormAnswer as FormRecord,
  FormSummaryAnswer as FormSummary,
  MintedTokenAnswer as MintedToken,
  SubmissionAnswer as Submission,
  SubmissionSummaryAnswer as SubmissionSummary,
  TokenInfoAnswer as TokenInfo,
} from '@havn/forms/wire';
import type {
  FormAnswer as FormRecord,
  FormSummaryAnswer as FormSummary,
  FormViewAnswer,
  NotSpamAnswer,
  SubmissionAnswer as Submission,
  TargetCheckAnswer,
  SubmissionSummaryAnswer as SubmissionSummary,
} from '@havn/forms/wire';

/** What the inbox changes of a form with PATCH; a webhook without a secret gets one made. */
export type FormChange = Partial<
  Pick<FormRecord, 'name' | 'description' | 'allowedOrigins' | 'notify' | 'spamProtection'>
> & { webhooks?: { url: string; secret?: string }[] };

export interface Question {
  logicalName: string;
  type: string;
  label: string;
  options?: { value: string; label: string }[];
}

export interface Definition {
  intro?: { title?: string };
  questions: Question[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class Api {
  constructor(
    readonly org: string,
    private readonly token: string,
    private readonly base = '',
  ) {}

  private orgPath(path: string): string {
    return `${this.base}/api/orgs/${encodeURIComponent(this.org)}${path}`;
  }

  async raw(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${this.token}`);
    let res: Response;
    try {
      res = await fetch(this.orgPath(path), { ...init, headers });
    } catch {
      throw new ApiError(0, 'The server cannot be reached. Check your connection and try again.');
    }
    if (!res.ok) {
      let message = `The server answered ${res.status}.`;
      try {
        const body = (await res.json()) as { error?: unknown };
        if (typeof body.error === 'string') message = body.error;
      } catch {
        // not JSON
      }
      throw new ApiError(res.status, message);
    }
    return res;
  }

  async json<T>(path: string, init: RequestInit = {}): Promise<T> {
    const res = await this.raw(path, init);
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  async forms(): Promise<FormSummary[]> {
    return (await this.json<{ forms: FormSummary[] }>('/forms')).forms;
  }

  /** A page of a feed, newest first; `before` (a submission id) pages back through older ones. */
  async feed(form?: string, limit = 50, before?: string): Promise<SubmissionSummary[]> {
    const query = `?limit=${limit}${before ? `&before=${encodeURIComponent(before)}` : ''}`;
    const path = form
      ? `/forms/${encodeURIComponent(form)}/submissions${query}`
      : `/submissions${query}`;
    const { submissions } = await this.json<{ submissions: SubmissionSummary[] }>(path);
    // Newest first, whatever order the server used.
    return [...submissions].sort((a, b) => b.receivedAt.localeCompare(a.receivedAt));
  }

  /** The form's metadata, its current definition and its public definition URL. */
  formInfo(form: string): Promise<FormViewAnswer> {
    return this.json(`/forms/${encodeURIComponent(form)}`);
  }

  submission(form: string, id: string): Promise<Submission> {
    return this.json(`/forms/${encodeURIComponent(form)}/submissions/${encodeURIComponent(id)}`);
  }

  /** A page of one form's spam, newest first (docs/forms.md#spam). */
  async spam(form: string, limit = 50, before?: string): Promise<SubmissionSummary[]> {
    const query = `?limit=${limit}${before ? `&before=${encodeURIComponent(before)}` : ''}`;
    const { submissions } = await this.json<{ submissions: SubmissionSummary[] }>(
      `/forms/${encodeURIComponent(form)}/spam${query}`,
    );
    return submissions;
  }

  /**
   * Changes only the fields in `change` (docs/forms.md#forms-and-definitions: PATCH); a list
   * (`webhooks`, `allowedOrigins`, `notify`) replaces the whole list.
   */
  patchForm(form: string, change: FormChange): Promise<FormRecord> {
    return this.json(`/forms/${encodeURIComponent(form)}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(change),
    });
  }

  /** Stores a spam submission as normal and fans it out; answers how many deliveries it queued. */
  async notSpam(form: string, id: string): Promise<number> {
    const { queued } = await this.json<NotSpamAnswer>(
      `/forms/${encodeURIComponent(form)}/submissions/${encodeURIComponent(id)}/not-spam`,
      { method: 'POST' },
    );
    return queued;
  }

  /** Whether the server's address policy lets deliveries reach `url` (docs/forms.md#outbound-safety). */
  checkWebhookTarget(url: string): Promise<TargetCheckAnswer> {
    return this.json('/webhooks/check', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url }),
    });
  }

  async markRead(form: string, id: string): Promise<void> {
    await this.json(
      `/forms/${encodeURIComponent(form)}/submissions/${encodeURIComponent(id)}/read`,
      { method: 'POST' },
    );
  }

  async markUnread(form: string, id: string): Promise<void> {
    await this.json(
      `/forms/${encodeURIComponent(form)}/submissions/${encodeURIComponent(id)}/unread`,
      { method: 'POST' },
    );
  }

  /**
   * Marks every unread submission read, of one form or of all, up to `through` (the newest one on
   * screen), so one that arrives meanwhile stays unread. Answers how many were marked.
   */
  async markAllRead(form: string | undefined, through: string | undefined): Promise<number> {
    const path = form ? `/forms/${encodeURIComponent(form)}/submissions` : '/submissions';
    const query = through ? `?through=${encodeURIComponent(through)}` : '';
    const { marked } = await this.json<{ marked: number }>(`${path}/read-all${query}`, {
      method: 'POST',
    });
    return marked;
  }

  /** Erases a submission for good (docs/forms.md#submissions). */
  async erase(form: string, id: string): Promise<void> {
    await this.json(`/forms/${encodeURIComponent(form)}/submissions/${encodeURIComponent(id)}`, {
      method: 'DELETE',
    });
  }

  async redeliver(form: string, id: string): Promise<void> {
    await this.json(
      `/forms/${encodeURIComponent(form)}/submissions/${encodeURIComponent(id)}/redeliver`,
      { method: 'POST' },
    );
  }

  /** The definition a submission was made against; the current one when the version is unknown. */
  async definition(form: string, version?: number | null): Promise<Definition | null> {
    const f = encodeURIComponent(form);
    if (version != null) {
      try {
        const body = await this.json<Definition | { definition: Definition }>(
          `/forms/${f}/definitions/${version}`,
        );
        return 'questions' in body ? body : body.definition;
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 404) throw err;
      }
    }
    const { definition } = await this.json<{ definition?: Definition | null }>(`/forms/${f}`);
    return definition && Array.isArray(definition.questions) ? definition : null;
  }

  /** An export; `labels` writes choice answers as their option labels (docs/forms.md#submissions). */
  exportFile(form: string, format: 'csv' | 'json', labels = false): Promise<Response> {
    return this.raw(
      `/forms/${encodeURIComponent(form)}/submissions/export?format=${format}${labels ? '&choices=labels' : ''}`,
    );
  }

  async subscribe(subscription: PushSubscriptionJSON): Promise<void> {
    await this.json('/push/subscribe', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(subscription),
    });
  }

  async unsubscribe(endpoint: string): Promise<void> {
    await this.json('/push/unsubscribe', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ endpoint }),
    });
  }
}

/** The server's public VAPID key (docs/forms.md#push-service-web-app: no token needed). */
export async function vapidKey(base = ''): Promise<string> {
  const res = await fetch(`${base}/api/push/vapid`);
  if (!res.ok) throw new ApiError(res.status, 'The server has no push key.');
  return ((await res.json()) as { publicKey: string }).publicKey;
}
