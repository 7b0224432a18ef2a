import type { Logger } from '@havn/shared';
import type { FileBytes } from '../store/file-bytes.js';
import type { SubmissionStore } from '../store/submissions.store.js';
import { ORPHAN_GRACE_MS, sweepOrphanFiles } from './uploads/orphan-files.js';

/**
 * Enforces each form's `retentionDays` (docs/forms.md#retention), and removes uploaded files no
 * submission names (docs/forms.md#file-uploads): sweeps when the server is ready and then every
 * `intervalMs`. A failed sweep is logged and tried again at the next one.
 */
export class RetentionSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly submissions: SubmissionStore,
    /** Their files go with them (docs/forms.md#file-uploads). */
    private readonly files: FileBytes,
    private readonly log: Logger,
    private readonly now: () => number,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.sweep();
    this.timer = setInterval(() => {
      this.sweep();
    }, this.intervalMs);
    this.timer.unref();
  }

  private sweep(): void {
    if (this.running) return;
    this.running = this.submissions
      .sweepRetention(this.now())
      .then(async ({ deleted, files }) => {
        await this.files.remove(files);
        if (deleted > 0) this.log.info({ deleted }, 'retention: old submissions deleted');
        const cutoff = new Date(this.now() - ORPHAN_GRACE_MS);
        const orphans = await sweepOrphanFiles(this.files, this.submissions, cutoff);
        if (orphans > 0) this.log.info({ orphans }, 'uploads: files no submission names removed');
      })
      .then(
        () => undefined,
        (err: unknown) => {
          this.log.error({ err }, 'retention: the sweep failed');
        },
      )
      .finally(() => {
        this.running = undefined;
      });
  }

  /** Stops sweeping and waits for a sweep under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
