import { renderErrors } from '../errors.js';
import {
  type ArtifactDescriptor,
  type ArtifactInput,
  type ArtifactStore,
  ArtifactStoreOver,
} from './artifact-store.js';

// Write faults of the artifact store (docs/operations.md#the-artifact-disk-is-full), over any
// store: a write the store refuses becomes a clear answer naming the store (507 when it is full,
// 503 when it cannot be written), the store's state is kept for /healthz, and each refusal is
// counted. The stores themselves remove what a failed write left, so nothing partial is listed.

/** What /healthz says of the artifact store: the outcome of its last write. */
export interface ArtifactStoreState {
  state: 'ok' | 'full' | 'failing';
  /** ISO 8601: since when it has been in this state (absent while ok since start). */
  since?: string;
  /** The last refusal's reason (an errno or SQLSTATE and its text), while not ok. */
  error?: string;
}

export type StoreRefusal = 'full' | 'failing';

/** Error codes that mean "no space": the filesystem's (ENOSPC, EDQUOT) and PostgreSQL's (53100). */
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', '53100']);
/** Filesystem and database codes of a store that cannot be written for another reason. */
const FAILING_CODES = new Set(['EIO', 'EROFS', 'EACCES', 'EPERM', '53000', '58030']);

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export class MonitoredArtifactStore extends ArtifactStoreOver {
  #state: ArtifactStoreState = { state: 'ok' };

  constructor(
    store: ArtifactStore,
    private readonly onRefusal: (why: StoreRefusal) => void,
  ) {
    super(store);
  }

  get state(): ArtifactStoreState {
    return this.#state;
  }

  async put(input: ArtifactInput): Promise<ArtifactDescriptor> {
    let descriptor: ArtifactDescriptor;
    try {
      descriptor = await this.store.put(input);
    } catch (err) {
      const code = codeOf(err);
      if (code === undefined || !(FULL_CODES.has(code) || FAILING_CODES.has(code))) throw err;
      const why: StoreRefusal = FULL_CODES.has(code) ? 'full' : 'failing';
      const error = `${code}: ${err instanceof Error ? err.message.split('\n')[0] : ''}`;
      if (this.#state.state !== why) this.#state = { state: why, since: new Date().toISOString() };
      this.#state = { ...this.#state, error };
      this.onRefusal(why);
      // Full answers 507 naming it; another failure 503 naming it and the reason.
      throw why === 'full'
        ? renderErrors.error('STORE_FULL')
        : renderErrors.error('STORE_FAILING', { reason: code });
    }
    if (this.#state.state !== 'ok') this.#state = { state: 'ok', since: new Date().toISOString() };
    return descriptor;
  }
}
