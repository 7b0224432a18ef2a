import type { Logger } from '@havn/shared';
import type { Labels } from '../artifacts/artifact-store.js';
import { STATE_NAME, type StateDescriptor, type StateStore } from '../artifacts/state-store.js';
import type { StorageState } from '../browser/storage-state.js';
import { renderErrors } from '../errors.js';
import { openState, sealState, StateUnreadableError } from './state-seal.js';

// Saved browser states (docs/sessions.md#log-in-once-render-many-times): a session's cookies,
// localStorage and IndexedDB, sealed under STATE_KEY and kept by name beside the artifacts, so
// that a session or a render can start logged in. Everything a caller can get wrong answers here,
// naming the state: 400 for a bad name, 404 for an unknown one, 409 without a key or for bytes
// this key cannot open, 413 over MAX_STATE_BYTES. The contents are never logged or answered.

export interface BrowserStatesDeps {
  store: StateStore;
  /** STATE_KEY, 32 bytes; undefined when unset (states can then be neither saved nor used). */
  key: Buffer | undefined;
  /** MAX_STATE_BYTES: the largest state, as JSON. */
  maxBytes: number;
  log: Logger;
  now?: () => number;
}

export class BrowserStates {
  readonly #d: BrowserStatesDeps;
  readonly #now: () => number;

  constructor(deps: BrowserStatesDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** 400 naming `field` unless `name` is a state's name. */
  checkName(name: string, field = 'name'): void {
    if (!STATE_NAME.test(name)) {
      throw renderErrors.error('STATE_NAME_INVALID', { field, pattern: STATE_NAME.source });
    }
  }

  /** Seals `state` under `name`, replacing a state of that name; answers its descriptor. */
  async save(name: string, state: StorageState, labels: Labels = {}): Promise<StateDescriptor> {
    this.checkName(name);
    const key = this.#key('saving a state');
    const contents = Buffer.from(JSON.stringify(state));
    if (contents.length > this.#d.maxBytes) {
      throw renderErrors.error('STATE_TOO_LARGE', {
        name,
        bytes: contents.length,
        max: this.#d.maxBytes,
      });
    }
    const descriptor: StateDescriptor = {
      name,
      origins: state.origins.map((o) => o.origin),
      cookies: state.cookies.length,
      bytes: contents.length,
      createdAt: new Date(this.#now()).toISOString(),
      labels: { ...labels },
    };
    await this.#d.store.put(name, sealState(key, descriptor, contents), descriptor);
    this.#d.log.info(
      { state: name, origins: descriptor.origins.length, cookies: descriptor.cookies },
      'state saved',
    );
    return descriptor;
  }

  /** The state named `name`, opened and authenticated whole; `field` is what the 400 names. */
  async load(name: string, field = 'state'): Promise<StorageState> {
    this.checkName(name, field);
    const sealed = await this.#d.store.get(name);
    if (!sealed) throw renderErrors.error('STATE_NOT_FOUND', { name });
    const key = this.#key(`using state ${name}`);
    try {
      const { descriptor, contents } = openState(key, sealed);
      // A file sealed for another name and copied over this one.
      if (descriptor.name !== name)
        throw new StateUnreadableError(`it was sealed as ${descriptor.name}`);
      return JSON.parse(contents.toString('utf8')) as StorageState;
    } catch (err) {
      if (!(err instanceof StateUnreadableError)) throw err;
      this.#d.log.warn({ state: name, reason: err.message }, 'a saved state could not be read');
      throw renderErrors.error('STATE_UNREADABLE', { name });
    }
  }

  list(): Promise<StateDescriptor[]> {
    return this.#d.store.list();
  }

  async remove(name: string): Promise<void> {
    this.checkName(name);
    if (!(await this.#d.store.remove(name))) {
      throw renderErrors.error('STATE_NOT_FOUND', { name });
    }
    this.#d.log.info({ state: name }, 'state deleted');
  }

  #key(doing: string): Buffer {
    if (!this.#d.key) throw renderErrors.error('STATE_KEY_MISSING', { doing });
    return this.#d.key;
  }
}
