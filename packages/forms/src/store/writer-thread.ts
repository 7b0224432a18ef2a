import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type {
  IngestBatchWire,
  IngestResults,
  Statement,
  WriterReply,
  WriterRequest,
} from './writer-protocol.js';

export type { Statement } from './writer-protocol.js';

/** The thread's module: the built .js, or from the sources (tests) the .ts loaded through tsx. */
function startWorker(file: string): Worker {
  const workerData = { file };
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL('./writer-thread.worker.js', import.meta.url), { workerData });
  }
  const source = new URL('./writer-thread.worker.ts', import.meta.url).href;
  // tsx's ESM entry: its package resolves `require` to the CommonJS twin beside it.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(
    /\.cjs$/,
    '.mjs',
  );
  const boot = `import(${JSON.stringify(tsx)}).then((m) => m.tsImport(${JSON.stringify(source)}, ${JSON.stringify(source)}))`;
  return new Worker(boot, { eval: true, workerData });
}

interface Waiting {
  resolve: (reply: WriterReply) => void;
  reject: (e: Error) => void;
}

/**
 * A thread that owns the SQLite connection ingest commits through. The commit's sync
 * (`synchronous=FULL`) then blocks that thread, not the event loop: requests keep being read and
 * gathered into the next group commit while the previous one reaches the disk. Ingest bodies are
 * parsed and turned into rows there too, so the event loop only hands the bytes over.
 */
export class WriterThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private idle: (() => void)[] = [];
  private failed: Error | undefined;

  constructor(file: string) {
    this.worker = startWorker(file);
    this.worker.on('message', (m: WriterReply) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      w?.resolve(m);
      if (this.waiting.size === 0) for (const done of this.idle.splice(0)) done();
    });
    this.worker.on('error', (err) => {
      this.failed = err;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
      for (const done of this.idle.splice(0)) done();
    });
  }

  /**
   * Runs the statements in one transaction; resolves after its commit is synced. The work is
   * posted at once, not held back until the previous commit answered: the thread starts the next
   * commit straight after the last one, with everything handed in meanwhile (ingest batches,
   * delivery records) sharing it, without waiting for this event loop to turn.
   */
  async run(statements: readonly Statement[]): Promise<void> {
    const reply = await this.send({ units: [[...statements]] });
    const error = reply.errors[0];
    if (error) throw new Error(error);
  }

  /**
   * Commits every unit (each alone if their shared transaction fails) and the batch's
   * submissions; the answer says, per unit and per submission, what became of it. The batch's
   * body buffer is transferred, not copied.
   */
  async commit(
    units: Statement[][],
    ingest: IngestBatchWire | undefined,
  ): Promise<{ errors: (string | null)[]; ingest: IngestResults }> {
    const reply = await this.send({ units, ingest }, ingest ? [ingest.bodies] : []);
    return reply;
  }

  async close(): Promise<void> {
    if (this.waiting.size > 0) {
      await new Promise<void>((resolve) => this.idle.push(resolve));
    }
    await this.send({ close: true });
    await this.worker.terminate();
  }

  private send(
    message: Omit<WriterRequest, 'id'>,
    transfer: ArrayBuffer[] = [],
  ): Promise<WriterReply> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.failed) {
        reject(this.failed);
        return;
      }
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message }, transfer);
    });
  }
}
