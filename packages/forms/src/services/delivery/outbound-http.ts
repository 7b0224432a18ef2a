import http from 'node:http';
import https from 'node:https';
import {
  checkHost,
  guardedLookup,
  HostRefusedError,
  isIpLiteral,
  type HostPolicy,
} from '@havn/shared';
import { RESPONSE_EXCERPT_BYTES, responseExcerpt } from './response-excerpt.js';

/**
 * What one delivery attempt came to; `drop` means the target is gone for good; `refused` means
 * the address policy refused the target, which no retry changes.
 */
export interface AttemptResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  /** The first bytes of the receiver's answer as safe text (responseExcerpt); null for none. */
  response?: string | null;
  drop?: boolean;
  refused?: boolean;
  /** The target refused for good (an SMTP 5xx about the recipient): failed, not retried. */
  permanent?: boolean;
}

/**
 * What every refusal of the address policy adds (docs/forms.md#outbound-safety): the setting that
 * lifts it, so a refused test or delivery says how to reach a receiver on this machine.
 */
export const PRIVATE_TARGET_HINT =
  'the forms server delivers to private, loopback and link-local addresses only with ALLOW_PRIVATE_WEBHOOKS=1';

/** The lookup's refusal of a host on a refused range (not a name that failed to resolve). */
function isPolicyRefusal(err: unknown): boolean {
  return err instanceof HostRefusedError && err.verdict.reason === 'refused';
}

export interface OutboundRequest {
  url: string;
  headers: Record<string, string | number>;
  body: Buffer | string;
}

/**
 * POSTs to a webhook or push endpoint under the private-address policy
 * (docs/forms.md#outbound-safety): names are resolved and checked by the agents' `guardedLookup`,
 * so the socket connects only to a checked address; IP literals never reach a lookup, so they are
 * checked here. Redirects are never followed: a 3xx is a failed attempt. Only the first
 * RESPONSE_EXCERPT_BYTES of an answer are read (docs/forms.md#webhooks): a receiver that answers
 * without end costs no more than one that answers with little.
 */
export class OutboundHttp {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly literals = new Map<string, string | null>();

  constructor(
    private readonly policy: HostPolicy,
    private readonly timeoutMs: number,
  ) {
    const lookup = guardedLookup(policy);
    this.httpAgent = new http.Agent({ keepAlive: true, lookup, maxSockets: 16 });
    this.httpsAgent = new https.Agent({ keepAlive: true, lookup, maxSockets: 16 });
  }

  async post(req: OutboundRequest): Promise<AttemptResult> {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return { ok: false, status: null, error: 'invalid URL' };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return { ok: false, status: null, error: `unsupported scheme ${url.protocol}` };
    }
    const refusal = await this.literalRefusal(url.hostname);
    if (refusal !== null) {
      return {
        ok: false,
        status: null,
        error: `${refusal}; ${PRIVATE_TARGET_HINT}`,
        refused: true,
      };
    }
    const length = typeof req.body === 'string' ? Buffer.byteLength(req.body) : req.body.byteLength;
    const client = url.protocol === 'https:' ? https : http;
    const agent = url.protocol === 'https:' ? this.httpsAgent : this.httpAgent;
    return new Promise<AttemptResult>((resolve) => {
      // A plain timer, not AbortSignal.timeout: the signal's listeners and weak timer cost the
      // event loop more than the rest of a loopback attempt.
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        request.destroy(new Error(`timed out after ${String(this.timeoutMs)} ms`));
      }, this.timeoutMs);
      const settle = (result: AttemptResult) => {
        clearTimeout(timer);
        resolve(result);
      };
      const request = client.request(
        url,
        {
          method: 'POST',
          agent,
          headers: { ...req.headers, 'content-length': length },
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const chunks: Buffer[] = [];
          let kept = 0;
          let answered = false;
          const answer = () => {
            if (answered) return;
            answered = true;
            const response = responseExcerpt(Buffer.concat(chunks));
            if (status >= 200 && status < 300) {
              settle({ ok: true, status, error: null, response });
            } else if (status >= 300 && status < 400) {
              const where = res.headers.location ?? 'elsewhere';
              settle({ ok: false, status, error: `redirect to ${where} not followed`, response });
            } else {
              const detail = (response ?? '').trim().slice(0, 200);
              const error = `HTTP ${String(status)}${detail ? `: ${detail}` : ''}`;
              settle({ ok: false, status, error, response });
            }
          };
          res.on('data', (chunk: Buffer) => {
            if (kept > RESPONSE_EXCERPT_BYTES) return;
            chunks.push(chunk);
            kept += chunk.byteLength;
            // Enough to show; the rest is not read (the socket goes, not back to the pool).
            if (kept > RESPONSE_EXCERPT_BYTES) {
              answer();
              res.destroy();
            }
          });
          res.on('error', () => undefined);
          res.on('end', answer);
        },
      );
      request.on('error', (err: NodeJS.ErrnoException) => {
        settle({
          ok: false,
          status: null,
          ...(isPolicyRefusal(err)
            ? { error: `${err.message}; ${PRIVATE_TARGET_HINT}`, refused: true }
            : { error: timedOut ? `timed out after ${String(this.timeoutMs)} ms` : err.message }),
        });
      });
      request.end(req.body);
    });
  }

  /**
   * Why an IP-literal host is refused (null when it is not a literal, or allowed). The verdict
   * depends only on the address and the fixed policy, so each host is checked once.
   */
  private async literalRefusal(hostname: string): Promise<string | null> {
    let verdict = this.literals.get(hostname);
    if (verdict === undefined) {
      if (isIpLiteral(hostname.replace(/^\[|\]$/g, ''))) {
        const checked = await checkHost(hostname, this.policy);
        verdict = checked.ok ? null : checked.message;
      } else {
        verdict = null;
      }
      if (this.literals.size >= 1_000) this.literals.clear();
      this.literals.set(hostname, verdict);
    }
    return verdict;
  }

  /**
   * Why the policy would refuse `url` (its host resolved and judged now), or null when a delivery
   * may go there: the inbox warns as a webhook is added (docs/forms.md#outbound-safety).
   */
  async targetRefusal(url: string): Promise<string | null> {
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      return 'the URL is not valid';
    }
    const verdict = await checkHost(host, this.policy);
    if (verdict.ok || verdict.reason !== 'refused') return null;
    return `${verdict.message}; ${PRIVATE_TARGET_HINT}`;
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
