import type { Logger } from '@havn/shared';
import type { AttemptOutcome, DeliveryRow, Outbox } from '../../store/outbox/outbox.js';
import type { DeliveryKind } from '../../store/outbox/tables.js';
import type { AttemptResult } from './outbound-http.js';
import { nextDelay, pushRetrySteps } from './retry-schedule.js';

export type Sender = (row: DeliveryRow) => Promise<AttemptResult>;

export interface DeliveryWorkerDeps {
  deliveries: Outbox;
  /** One sender for each kind of delivery (store/outbox/tables.ts). */
  senders: Record<DeliveryKind, Sender>;
  log: Logger;
  schedule: readonly number[];
  now?: () => number;
  concurrency?: number;
  /**
   * True while submissions wait for a commit; the worker then keeps to `burstConcurrency`
   * attempts at a time, started at least `burstSpacingMs` apart, so an ingest burst keeps the
   * CPU (each attempt costs the event loop as much as several ingests), and resumes full
   * concurrency after it.
   */
  ingestBusy?: () => boolean;
  burstConcurrency?: number;
  burstSpacingMs?: number;
  /**
   * How long a delivery this instance claimed stays its own on a shared database; after that
   * another instance may attempt it (this one died). Well above the attempt timeout plus the time
   * a claimed page waits for its turn.
   */
  leaseMs?: number;
}

/** The default lease: six attempt timeouts of 10 s. */
export const defaultLeaseMs = 60_000;

const maxIdleWaitMs = 60_000;
// The outbox is read a page at a time, not once per attempt: a read cost as much as an attempt.
const pageSize = 64;
// A page read longer ago is read again (a redeliver or a drop since is then seen).
const pageTtlMs = 1_000;
/**
 * Attempts in flight to one receiver that has not shown it answers quickly
 * (docs/operations.md#a-webhook-receiver-or-smtp-server-that-accepts-and-never-answers): a
 * receiver that accepts and never answers holds each attempt for the whole timeout, and must not
 * take every slot from the other forms' receivers. One that answered its last attempt within
 * `quickMs`, and has no attempt in flight for longer, may use every slot.
 */
export const perReceiverConcurrency = 4;
const quickMs = 1_000;
/** Receivers remembered as quick (bounded: the oldest are forgotten). */
const quickReceiversKept = 1_000;

/** Who answers an attempt: a webhook's or push service's origin; the one SMTP server for email. */
function receiverOf(row: DeliveryRow): string {
  if (row.kind === 'email') return 'smtp';
  try {
    return new URL(row.target).origin;
  } catch {
    return row.target;
  }
}

/**
 * Drains the durable outbox (docs/forms.md#webhooks): picks due deliveries, sends them with
 * bounded concurrency, records each attempt, and schedules the next one on the retry schedule.
 * State lives only in the database, so a restart resumes where the last process stopped (at
 * least once).
 */
export class DeliveryWorker {
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Start times (performance.now()) of the attempts in flight, by receiver (receiverOf). */
  private readonly inFlightTo = new Map<string, number[]>();
  /** Receivers whose last attempt was answered within quickMs. */
  private readonly quick = new Set<string>();
  private readonly now: () => number;
  private readonly concurrency: number;
  private readonly burstConcurrency: number;
  private readonly burstSpacingMs: number;
  private readonly leaseMs: number;
  private lastLaunch = 0;
  /** Targets the address policy refused, each logged once (bounded). */
  private readonly refusedTargets = new Set<string>();
  private page: DeliveryRow[] = [];
  private pageReadAt = 0;
  /** The round of reading and launching under way, if any. */
  private pumping: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private kicked = false;
  private timer: NodeJS.Timeout | undefined;
  private toRecord: {
    delivery: DeliveryRow;
    outcome: AttemptOutcome;
    resolve: () => void;
    reject: (err: unknown) => void;
  }[] = [];

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.now = deps.now ?? Date.now;
    this.concurrency = deps.concurrency ?? 16;
    this.burstConcurrency = Math.min(deps.burstConcurrency ?? 1, this.concurrency);
    this.burstSpacingMs = deps.burstSpacingMs ?? 20;
    this.leaseMs = deps.leaseMs ?? defaultLeaseMs;
  }

  start(): void {
    this.stopped = false;
    this.kick();
  }

  /** Something may be due now (a commit, a redeliver). */
  kick(): void {
    if (this.stopped || this.kicked) return;
    // Coalesce: a burst of commits and finished attempts costs one outbox read, not one each.
    this.kicked = true;
    setImmediate(() => {
      this.kicked = false;
      void this.pump();
    });
  }

  /**
   * Starts no new attempt, waits for the ones in flight (each bounded by its timeout), then hands
   * back the leases of the rows it had claimed and not attempted.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.page = [];
    clearTimeout(this.timer);
    // A round reading the outbox right now launches nothing more once it returns; wait for it, so
    // every attempt it did launch is waited for below and its lease is not handed back in flight.
    await this.pumping?.catch(() => undefined);
    await Promise.allSettled([...this.inFlight.values()]);
    await this.deps.deliveries.releaseLeases().catch((err: unknown) => {
      this.deps.log.error({ err }, 'delivery worker: handing back the leases failed');
    });
  }

  private running(): boolean {
    return !this.stopped;
  }

  private pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return this.pumping;
    }
    const round = this.pumpOnce().finally(() => {
      this.pumping = undefined;
      // An attempt that finished while we were arming the timer asked for another round.
      if (this.again && !this.stopped) void this.pump();
    });
    // Set before the round can finish: its `finally` runs on a later microtask.
    this.pumping = round;
    return round;
  }

  private async pumpOnce(): Promise<void> {
    try {
      let saturated = false;
      do {
        this.again = false;
        const busy = this.deps.ingestBusy?.() ?? false;
        const free = (busy ? this.burstConcurrency : this.concurrency) - this.inFlight.size;
        saturated = free <= 0;
        if (this.stopped) break;
        if (saturated) {
          // Held back by a burst, not by attempts: a hanging receiver's attempts end only at their
          // timeout, so look again once the burst may be over rather than waiting for them.
          if (busy) this.setTimer(this.burstSpacingMs);
          break;
        }
        const wait = busy ? this.lastLaunch + this.burstSpacingMs - performance.now() : 0;
        if (wait > 0) {
          // Paced during a burst: come back when the next attempt may start.
          saturated = true;
          this.setTimer(wait);
          break;
        }
        const rows = await this.take(free);
        // Stopped while the outbox was read: launch nothing (stop hands the claims back).
        if (!this.running()) break;
        // What is due waits for its receivers' attempts in flight; each one that ends pumps again.
        if (rows.length === 0 && this.page.length > 0) {
          saturated = true;
          break;
        }
        if (rows.length > 0) this.lastLaunch = performance.now();
        for (const row of rows) this.launch(row);
        if (rows.length === free) this.again = true;
      } while (this.again && this.running());
      // Every slot busy: the next finished attempt pumps again, so the outbox is not read (nor the
      // timer armed) on each of the many commits of an ingest burst.
      if (this.running() && !saturated) await this.arm();
    } catch (err) {
      this.deps.log.error({ err }, 'delivery worker: reading the outbox failed');
      if (!this.stopped) this.setTimer(5_000);
    }
  }

  /** Up to `n` due deliveries, from the page read last if it still holds enough. */
  private async take(n: number): Promise<DeliveryRow[]> {
    const stale = this.page.length < n || performance.now() - this.pageReadAt > pageTtlMs;
    if (stale) await this.readPage(n);
    let taken = this.pick(n);
    // Everything on the page waits for its receivers: what was committed since may not.
    if (taken.length === 0 && !stale && this.page.length > 0) {
      await this.readPage(n);
      taken = this.pick(n);
    }
    return taken;
  }

  private async readPage(n: number): Promise<void> {
    // Everything not in flight is read again, the rows left on the old page included.
    this.pageReadAt = performance.now();
    this.page = await this.deps.deliveries.due(
      this.now(),
      Math.max(n, pageSize),
      [...this.inFlight.keys()],
      this.leaseMs,
    );
  }

  /** Up to `n` rows off the page, no receiver past its share; the rest stay for a later round. */
  private pick(n: number): DeliveryRow[] {
    const taken: DeliveryRow[] = [];
    const counts = new Map<string, number>();
    this.page = this.page.filter((row) => {
      const receiver = receiverOf(row);
      const count = counts.get(receiver) ?? this.inFlightTo.get(receiver)?.length ?? 0;
      if (taken.length >= n || count >= this.shareOf(receiver)) return true;
      counts.set(receiver, count + 1);
      taken.push(row);
      return false;
    });
    return taken;
  }

  /** How many attempts `receiver` may have in flight. */
  private shareOf(receiver: string): number {
    if (!this.quick.has(receiver)) return perReceiverConcurrency;
    const started = this.inFlightTo.get(receiver) ?? [];
    const stuck = started.some((t) => performance.now() - t > quickMs);
    return stuck ? perReceiverConcurrency : this.concurrency;
  }

  /** The attempt to `receiver` started at `started` has its answer, after `ms`. */
  private answered(receiver: string, started: number, ms: number): void {
    const starts = this.inFlightTo.get(receiver) ?? [];
    const at = starts.indexOf(started);
    if (at < 0) return;
    starts.splice(at, 1);
    if (starts.length === 0) this.inFlightTo.delete(receiver);
    this.quick.delete(receiver);
    if (ms > quickMs) return;
    if (this.quick.size >= quickReceiversKept) {
      const oldest = this.quick.values().next().value;
      if (oldest !== undefined) this.quick.delete(oldest);
    }
    this.quick.add(receiver);
  }

  private async arm(): Promise<void> {
    const next = await this.deps.deliveries.nextDueAt();
    if (next === undefined) {
      clearTimeout(this.timer);
      return;
    }
    this.setTimer(Math.min(Math.max(next - this.now(), 0), maxIdleWaitMs));
  }

  private setTimer(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.kick();
    }, ms);
    this.timer.unref();
  }

  private launch(row: DeliveryRow): void {
    const receiver = receiverOf(row);
    const started = performance.now();
    this.inFlightTo.set(receiver, [...(this.inFlightTo.get(receiver) ?? []), started]);
    const done = this.attempt(row, (ms) => {
      this.answered(receiver, started, ms);
    })
      .catch((err: unknown) => {
        this.deps.log.error({ err, delivery: row.id }, 'delivery worker: attempt failed to record');
      })
      .finally(() => {
        this.inFlight.delete(row.id);
        this.answered(receiver, started, Infinity);
        this.kick();
      });
    this.inFlight.set(row.id, done);
  }

  /** Sends `row`, calls `answered` with the send's duration, then records the attempt. */
  private async attempt(row: DeliveryRow, answered: (ms: number) => void): Promise<void> {
    const started = this.now();
    const t0 = performance.now();
    let result: AttemptResult;
    try {
      result = await this.deps.senders[row.kind](row);
    } catch (err) {
      result = { ok: false, status: null, error: (err as Error).message };
    }
    const durationMs = Math.round(performance.now() - t0);
    answered(durationMs);
    const roundAttempts = row.roundAttempts + 1;
    const finished = this.now();
    let next: { status: DeliveryRow['status']; nextAttemptAt: number; deliveredAt: string | null };
    if (result.ok) {
      next = {
        status: 'delivered',
        nextAttemptAt: finished,
        deliveredAt: new Date(finished).toISOString(),
      };
    } else if (result.drop) {
      next = { status: 'dropped', nextAttemptAt: finished, deliveredAt: null };
    } else if (result.refused) {
      // docs/forms.md#outbound-safety: the policy's verdict does not change with retries, so the
      // delivery fails at once, and the target is logged once, not once per delivery.
      next = { status: 'failed', nextAttemptAt: finished, deliveredAt: null };
      this.logRefusedOnce(row, result.error);
    } else if (result.permanent) {
      // docs/forms.md#email-notices: a mail server's final no does not change with retries.
      next = { status: 'failed', nextAttemptAt: finished, deliveredAt: null };
      this.deps.log.warn(
        { delivery: row.id, kind: row.kind, status: result.status, error: result.error },
        'delivery refused for good; not retried',
      );
    } else {
      const schedule =
        row.kind === 'push' ? this.deps.schedule.slice(0, pushRetrySteps) : this.deps.schedule;
      const delay = nextDelay(schedule, roundAttempts);
      next =
        delay === undefined
          ? { status: 'failed', nextAttemptAt: finished, deliveredAt: null }
          : { status: 'pending', nextAttemptAt: finished + delay, deliveredAt: null };
      this.deps.log.warn(
        {
          delivery: row.id,
          kind: row.kind,
          status: result.status,
          error: result.error,
          next: next.status,
        },
        'delivery attempt failed',
      );
    }
    await this.recordBatched(row, {
      attemptedAt: new Date(started).toISOString(),
      status: result.status,
      durationMs,
      error: result.error,
      response: result.response ?? null,
      next: { ...next, roundAttempts },
    });
  }

  private logRefusedOnce(row: DeliveryRow, error: string | null): void {
    if (this.refusedTargets.has(row.target)) return;
    if (this.refusedTargets.size >= 1_000) this.refusedTargets.clear();
    this.refusedTargets.add(row.target);
    this.deps.log.warn(
      { kind: row.kind, target: row.target, error },
      'delivery target refused by the address policy; its deliveries fail without retries',
    );
  }

  // Attempts that finish together are recorded in one transaction: one sync instead of one each,
  // so a busy worker does not eat the disk time ingest needs.
  private recordBatched(delivery: DeliveryRow, outcome: AttemptOutcome): Promise<void> {
    return new Promise((resolve, reject) => {
      this.toRecord.push({ delivery, outcome, resolve, reject });
      if (this.toRecord.length > 1) return;
      setImmediate(() => {
        const batch = this.toRecord.splice(0);
        this.deps.deliveries.record(batch).then(
          () => {
            for (const b of batch) b.resolve();
          },
          (err: unknown) => {
            for (const b of batch) b.reject(err);
          },
        );
      });
    });
  }
}
