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

/** A thread running `name`: the built .js, or from the sources (tests) the .ts through tsx. */
function startWorker(name: string, workerData: object): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL(`./${name}.js`, import.meta.url), { workerData });
  }
  const source = new URL(`./${name}.ts`, import.meta.url).href;
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
 * (`synchronous=FULL`) blocks it, not the event loop: requests keep being read and gathered into
 * the next group commit while the previous one reaches the disk. It also parses the raw ingest
 * bodies and builds their rows (IngestRowBuilder): a separate builder thread, measured, was slower
 * on two cores, its extra hand-over costing more than the build it took off this thread.
 */
export class WriterThread {
  private readonly writer: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private idle: (() => void)[] = [];
  private failed: Error | undefined;

  constructor(file: string) {
    // The thread's entry sits beside main.ts: it wires ingest's rules into the store.
    this.writer = startWorker('../writer-thread.worker', { file });
    this.writer.on('message', (m: WriterReply) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      w?.resolve(m);
      if (this.waiting.size === 0) for (const done of this.idle.splice(0)) done();
    });
    const fail = (err: Error) => {
      this.failed = err;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
      for (const done of this.idle.splice(0)) done();
    };
    this.writer.on('error', fail);
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
    return this.send({ units, ingest }, ingest ? [ingest.bodies] : []);
  }

  async close(): Promise<void> {
    if (this.waiting.size > 0) {
      await new Promise<void>((resolve) => this.idle.push(resolve));
    }
    await this.send({ close: true });
    await this.writer.terminate();
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
      this.writer.postMessage({ id, ...message }, transfer);
    });
  }
}
