import { renderErrors } from '../errors.js';

// The render queue (docs/render.md#behaviour-in-detail): MAX_CONCURRENCY slots, waiters served
// first come first served, a waiter past QUEUE_TIMEOUT_MS rejected with 503, and a waiter whose
// client went away removed without ever taking a slot.

/** Gives the slot back; idempotent. */
export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
  fail: (err: Error) => void;
}

export class RenderQueue {
  readonly #slots: number;
  readonly #timeoutMs: number;
  readonly #onChange: () => void;
  #inFlight = 0;
  readonly #waiting: Waiter[] = [];

  constructor(options: { slots: number; timeoutMs: number; onChange?: () => void }) {
    this.#slots = options.slots;
    this.#timeoutMs = options.timeoutMs;
    this.#onChange = options.onChange ?? (() => undefined);
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  get queued(): number {
    return this.#waiting.length;
  }

  #release(): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#inFlight--;
      this.#next();
    };
  }

  #next(): void {
    while (this.#inFlight < this.#slots) {
      const waiter = this.#waiting.shift();
      if (!waiter) break;
      this.#inFlight++;
      waiter.grant(this.#release());
    }
    this.#onChange();
  }

  /** Waits for a slot. Rejects with 503 after the queue timeout, or with the signal's reason. */
  acquire(signal: AbortSignal): Promise<Release> {
    if (signal.aborted) return Promise.reject(new Error('aborted'));
    if (this.#inFlight < this.#slots && this.#waiting.length === 0) {
      this.#inFlight++;
      this.#onChange();
      return Promise.resolve(this.#release());
    }
    return new Promise<Release>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const i = this.#waiting.indexOf(waiter);
        if (i >= 0) this.#waiting.splice(i, 1);
        this.#onChange();
      };
      const waiter: Waiter = {
        grant: (release) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
        fail: (err: Error) => {
          leave();
          reject(err);
        },
      };
      const onAbort = () => {
        waiter.fail(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      const timer = setTimeout(() => {
        waiter.fail(renderErrors.error('QUEUE_FULL', { ms: this.#timeoutMs, slots: this.#slots }));
      }, this.#timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
      this.#onChange();
    });
  }
}
