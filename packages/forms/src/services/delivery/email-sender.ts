// Sends email notices (docs/forms.md#email-notices) through the operator's SMTP server. The host
// is the operator's choice (SMTP_URL), not a submitter's, so the private-address policy of
// webhooks (docs/forms.md#outbound-safety) does not apply to it: a relay on localhost or on the
// internal network is the usual case.
import nodemailer, { type Transporter } from 'nodemailer';
import type { SmtpConfig } from '../../smtp-config.js';
import { isEmailAddress } from '../../smtp-config.js';
import type { DeliveryRow } from '../../store/outbox/outbox.js';
import type { FormStore } from '../../store/forms.store.js';
import type { SubmissionStore } from '../../store/submissions.store.js';
import { noticeMail } from './email-message.js';
import type { AttemptResult } from './outbound-http.js';

export interface EmailSenderDeps {
  smtp: SmtpConfig | undefined;
  forms: FormStore;
  submissions: SubmissionStore;
  /** The inbox's base URL for the link to the submission (PUBLIC_BASE_URL, else this server). */
  baseUrl: () => string;
  timeoutMs: number;
}

/** What an SMTP failure carries beyond its message (nodemailer's errors). */
interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
}

/** A loopback host: credentials may cross it without TLS. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** The sender of `email` deliveries, and the transport to close on shutdown. */
export function emailSender(deps: EmailSenderDeps): {
  send: (row: DeliveryRow) => Promise<AttemptResult>;
  close: () => void;
} {
  const { smtp } = deps;
  if (smtp === undefined) {
    // Notices are off (SMTP_URL unset). A form's notify list still makes deliveries at ingest;
    // each is dropped at its first attempt with this reason, which the inbox shows.
    return {
      send: () =>
        Promise.resolve({
          ok: false,
          status: null,
          error: 'email notices are off: the server has no SMTP_URL',
          drop: true,
        }),
      close: () => undefined,
    };
  }
  const transport: Transporter = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    // A password never crosses the network in the clear, except to a relay on this machine.
    requireTLS: !smtp.secure && smtp.password !== undefined && !isLoopback(smtp.host),
    ...(smtp.user !== undefined ? { auth: { user: smtp.user, pass: smtp.password ?? '' } } : {}),
    connectionTimeout: deps.timeoutMs,
    greetingTimeout: deps.timeoutMs,
    socketTimeout: deps.timeoutMs,
    // Nothing in a notice names a file or a URL to fetch; refuse them should one ever slip in.
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
  });
  // Nothing the server says goes to a log or a delivery's error with the password in it.
  const scrub = (text: string) =>
    smtp.password ? text.split(smtp.password).join('[redacted]') : text;

  const send = async (row: DeliveryRow): Promise<AttemptResult> => {
    if (!isEmailAddress(row.target)) {
      return { ok: false, status: null, error: 'not an email address', drop: true };
    }
    const submission = await deps.submissions.get(row.orgSlug, row.formId, row.submissionId);
    if (!submission) return { ok: false, status: null, error: 'submission erased', drop: true };
    const form = await deps.forms.get(row.orgSlug, row.formId);
    const stored =
      submission.definitionVersion === null
        ? undefined
        : await deps.forms.definition(row.orgSlug, row.formId, submission.definitionVersion);
    const base = deps.baseUrl();
    const mail = noticeMail({
      org: row.orgSlug,
      formId: row.formId,
      formName: form?.name ?? row.formId,
      submissionId: submission.id,
      receivedAt: submission.receivedAt,
      answers: submission.answers,
      definition: stored?.definition ?? null,
      link: `${base}/#/submissions/${encodeURIComponent(row.formId)}/${encodeURIComponent(submission.id)}`,
    });
    try {
      const info = (await transport.sendMail({
        from: smtp.from,
        to: row.target,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        ...(mail.replyTo !== undefined ? { replyTo: mail.replyTo } : {}),
        // The same id on every attempt lets a mail system drop a repeat (at-least-once delivery).
        messageId: `<${row.id}@havn.forms>`,
        headers: { 'auto-submitted': 'auto-generated' }, // RFC 3834: no auto-replies
      })) as { response?: string };
      const code = /^(\d{3})/.exec(info.response ?? '')?.[1];
      return { ok: true, status: code === undefined ? null : Number(code), error: null };
    } catch (err) {
      const e = err as SmtpError;
      const status = typeof e.responseCode === 'number' ? e.responseCode : null;
      const error = scrub((e.response ?? e.message).trim()).slice(0, 300);
      // A 5xx about the recipient or the message is final; retries would be refused alike.
      const permanent =
        status !== null && status >= 500 && (e.code === 'EENVELOPE' || e.code === 'EMESSAGE');
      return { ok: false, status, error, ...(permanent ? { permanent: true } : {}) };
    }
  };
  return {
    send,
    close: () => {
      transport.close();
    },
  };
}
