import { HttpError, type HostPolicy, type Logger } from '@havn/shared';
import type { ArtifactDescriptor, ArtifactStore } from '../artifacts/artifact-store.js';
import {
  onPage,
  take,
  type CaptureControl,
  type CaptureJob,
  type PageAction,
} from '../browser/capture.js';
import {
  CaptureFailedError,
  CaptureInputError,
  CaptureTimeoutError,
  NavigationError,
  PageCrashedError,
} from '../browser/capture-errors.js';
import {
  BrowserCrashedError,
  BrowserHungError,
  BrowserLaunchError,
  type WarmBrowser,
} from '../browser/warm-browser.js';
import type { GuardProxy, ProxyChannel } from '../netguard/guard-proxy.js';
import { judgeHops } from '../netguard/navigation-hops.js';
import { checkRenderUrl } from '../netguard/url-check.js';
import { renderErrors, type RenderErrorName } from '../errors.js';
import type { CaptureLimits } from '../capture-limits.js';
import { finishPdf } from '../pdf/pdf-finish.js';
import { PdfToolError, type QpdfTool } from '../pdf/pdf-protect.js';
import type { Profile } from '../profiles.js';
import type { BrowserStates } from './browser-states.js';
import type { FailureCause, RenderMetrics } from './render-metrics.js';
import { CONTENT_TYPES, type PreparedOptions } from './render-options.js';
import type { RenderQueue } from './render-queue.js';

// One render from a validated request to bytes: early URL check, a queue slot, a proxy channel of
// its own, the capture under RENDER_TIMEOUT_MS, and the mapping of every failure to its status
// (docs/render.md#statuses).

export interface RenderServiceDeps {
  browser: WarmBrowser;
  proxy: GuardProxy;
  queue: RenderQueue;
  store: ArtifactStore;
  /** Saved browser states a render may start from. */
  states: BrowserStates;
  metrics: RenderMetrics;
  log: Logger;
  policy: HostPolicy;
  renderTimeoutMs: number;
  captureLimits: CaptureLimits;
  /** qpdf, for `pdf.encrypt`. */
  qpdf: QpdfTool;
}

export interface Rendered {
  buffer: Buffer;
  contentType: string;
  ms: number;
}

/**
 * The client went away; nobody will read the answer. 499 (nginx's "client closed request") keeps
 * it out of the error log and marks it in the request log.
 */
const clientGone = () => renderErrors.error('CLIENT_GONE');

// How long after the deadline a capture that will not settle keeps its slot (a wedged browser is
// replaced meanwhile); past it the slot is freed anyway so the queue keeps moving.
const SLOT_GRACE_MS = 10_000;

export class RenderService {
  readonly #d: RenderServiceDeps;

  constructor(deps: RenderServiceDeps) {
    this.#d = deps;
  }

  /** The early private-address check of `url`: 400 naming host, address and range. */
  async checkTarget(options: PreparedOptions): Promise<void> {
    if (!('url' in options.target)) return;
    try {
      await checkRenderUrl(options.target.url, this.#d.policy);
    } catch (err) {
      this.#d.metrics.failures.inc({
        cause: URL_REFUSALS.has(renderErrors.nameOf(err)) ? 'refused' : 'navigation',
      });
      throw err;
    }
  }

  /**
   * The options with the saved state they name opened (404 unknown, 409 unreadable, naming it),
   * before any work starts: a batch fails as a whole, not slot by slot.
   */
  async withState(options: PreparedOptions): Promise<PreparedOptions> {
    if (options.state === undefined) return options;
    return { ...options, storageState: await this.#d.states.load(options.state) };
  }

  /** Renders one profile; rejects with a render error (RENDER_CLIENT_GONE when the client left). */
  async render(options: PreparedOptions, profile: Profile, signal: AbortSignal): Promise<Rendered> {
    const job = { ...options, profile };
    const { value: buffer, ms } = await this.onPage(
      options.format,
      job,
      signal,
      ({ page }, control) => take(page, job, control),
      // After the slot: metadata and protection need no browser.
      (captured) =>
        options.pdfFinish ? finishPdf(captured, options.pdfFinish, this.#d.qpdf) : captured,
    );
    return { buffer, contentType: CONTENT_TYPES[options.format], ms };
  }

  /**
   * The one path of every render and extraction: a queue slot, the page loaded under the job's
   * profile and waits, `act` on it within RENDER_TIMEOUT_MS, then `after` outside the slot. `ms`
   * (and havn_render_duration_seconds{format: kind}) spans slot to finish.
   */
  async onPage<T, U = T>(
    kind: string,
    job: CaptureJob,
    signal: AbortSignal,
    act: PageAction<T>,
    after: (value: T) => U | Promise<U> = (value) => value as unknown as U,
  ): Promise<{ value: U; ms: number }> {
    const { queue, metrics } = this.#d;
    try {
      const release = await queue.acquire(signal);
      const started = performance.now();
      let released: Promise<unknown> | undefined;
      try {
        const done = await this.#withDeadline(job, signal, act, (settled) => {
          released = settled;
        });
        release();
        const value = await after(done);
        const ms = Math.round(performance.now() - started);
        metrics.duration.observe({ format: kind }, ms / 1000);
        return { value, ms };
      } finally {
        if (released) void released.then(release);
        else release();
      }
    } catch (err) {
      const mapped = signal.aborted ? clientGone() : this.#map(err);
      metrics.failures.inc({ cause: causeOf(mapped) });
      throw mapped;
    }
  }

  /**
   * Runs `act` under RENDER_TIMEOUT_MS. At the deadline the render answers at once; the capture
   * is aborted, and `holdSlot` is handed the moment its slot may be given back: when the browser
   * has let go of the context and answered a probe (or been replaced), or SLOT_GRACE_MS later.
   */
  async #withDeadline<T>(
    job: CaptureJob,
    clientSignal: AbortSignal,
    act: PageAction<T>,
    holdSlot: (settled: Promise<unknown>) => void,
  ): Promise<T> {
    const { renderTimeoutMs } = this.#d;
    const abort = new AbortController();
    const onClient = () => {
      abort.abort(clientGone());
    };
    clientSignal.addEventListener('abort', onClient, { once: true });
    const channel = await this.#d.proxy.openChannel();
    let deadlineTimer: NodeJS.Timeout | undefined;
    const control: CaptureControl = {
      proxyUrl: channel.url,
      deadline: Date.now() + renderTimeoutMs,
      limits: this.#d.captureLimits,
      signal: abort.signal,
      checkNavigation: (urls) => {
        judgeNavigation(urls, channel);
      },
    };
    const work = onPage(this.#d.browser, job, control, act).finally(() => {
      void channel.close();
    });
    const deadline = new Promise<never>((_, reject) => {
      deadlineTimer = setTimeout(() => {
        abort.abort(new CaptureTimeoutError());
        // A page may simply be slow; a browser that no longer answers is killed and replaced.
        // The slot waits for that verdict too, so a queued render is not handed a hung browser.
        const verdict = this.#d.browser.probe();
        const settled = Promise.all([work.catch(() => undefined), verdict]);
        holdSlot(Promise.race([settled, sleep(SLOT_GRACE_MS)]));
        reject(new CaptureTimeoutError());
      }, renderTimeoutMs);
    });
    try {
      return await Promise.race([work, deadline]);
    } finally {
      clearTimeout(deadlineTimer);
      clientSignal.removeEventListener('abort', onClient);
    }
  }

  #map(err: unknown): Error {
    if (err instanceof HttpError) return err;
    if (err instanceof CaptureTimeoutError) {
      return renderErrors.error('TIMEOUT', { ms: this.#d.renderTimeoutMs });
    }
    if (err instanceof NavigationError) {
      return renderErrors.error('NAVIGATION_FAILED', { reason: err.reason });
    }
    if (err instanceof CaptureInputError) {
      return renderErrors.error('CAPTURE_INPUT_INVALID', {
        field: err.field,
        problem: err.problem,
      });
    }
    if (err instanceof CaptureFailedError) {
      return renderErrors.error('CAPTURE_FAILED', { reason: err.reason });
    }
    if (err instanceof BrowserHungError) return renderErrors.error('BROWSER_HUNG');
    if (err instanceof BrowserCrashedError) return renderErrors.error('BROWSER_CRASHED');
    if (err instanceof PageCrashedError) return renderErrors.error('PAGE_CRASHED');
    if (err instanceof BrowserLaunchError) {
      return renderErrors.error('BROWSER_LAUNCH_FAILED', { reason: err.reason });
    }
    if (err instanceof PdfToolError) {
      this.#d.log.error({ err: err.message }, 'pdf tool failed');
      return renderErrors.error('PDF_TOOL_FAILED', { reason: err.message });
    }
    this.#d.log.error({ err }, 'render failed');
    return err instanceof Error ? err : new Error(String(err));
  }

  /** Stores a rendered output as an artifact. */
  store(rendered: Rendered, labels: Record<string, string>): Promise<ArtifactDescriptor> {
    return this.#d.store.put({ contentType: rendered.contentType, labels, body: rendered.buffer });
  }
}

/**
 * Throws when a main-frame navigation hop went somewhere the proxy refused (400,
 * docs/render.md#private-network-policy) or could not reach (502 `navigation failed: <reason>`).
 */
function judgeNavigation(urls: readonly string[], channel: ProxyChannel): void {
  const verdict = judgeHops(urls, channel);
  if (verdict && 'refused' in verdict) {
    const { message: reason, host } = verdict.refused;
    throw renderErrors.error('NAVIGATION_REFUSED', { reason, host });
  }
  if (verdict) throw new NavigationError(verdict.unreachable.reason);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** The codes of the early URL check that count as refused (its 502 is a failed navigation). */
const URL_REFUSALS = new Set<RenderErrorName | undefined>([
  'URL_INVALID',
  'URL_SCHEME',
  'URL_CREDENTIALS',
  'URL_PRIVATE',
]);

/** havn_render_failures_total's cause of each error a render ends with; any other 400 is invalid. */
const CAUSES: Partial<Record<RenderErrorName, FailureCause>> = {
  CLIENT_GONE: 'aborted',
  NAVIGATION_REFUSED: 'refused',
  TIMEOUT: 'render_timeout',
  BROWSER_HUNG: 'browser_hung',
  PAGE_CRASHED: 'page_crash',
  BROWSER_CRASHED: 'browser_crash',
  BROWSER_LAUNCH_FAILED: 'browser_crash',
  CAPTURE_FAILED: 'capture',
  NAVIGATION_FAILED: 'navigation',
  QUEUE_FULL: 'queue_timeout',
};

function causeOf(err: Error): FailureCause {
  const name = renderErrors.nameOf(err);
  if (name === undefined) return 'internal';
  return CAUSES[name] ?? (err instanceof HttpError && err.status === 400 ? 'invalid' : 'internal');
}
