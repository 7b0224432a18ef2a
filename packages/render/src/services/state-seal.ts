import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { StateDescriptor } from '../artifacts/state-store.js';

// How a saved browser state is kept at rest (docs/sessions.md#log-in-once-render-many-times):
// AES-256-GCM from node:crypto, a fresh 96-bit nonce per save, under STATE_KEY. The descriptor
// (name, origins, counts, labels) stays readable in front so that listing needs no key, and is
// authenticated with the contents as associated data: a flipped byte anywhere, a descriptor
// edited, or one state's file copied under another name, is refused as a whole, never half-read.
//
//   havn-state/1\n <descriptor JSON> \n <nonce 12> <tag 16> <ciphertext>

const MAGIC = Buffer.from('havn-state/1\n');
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** The front is a descriptor, a few KiB; a longer one is not ours. */
const MAX_HEADER_BYTES = 1024 * 1024;

/** The stored bytes could not be opened: another key, or changed since they were sealed. */
export class StateUnreadableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'StateUnreadableError';
  }
}

/** The sealed form of `contents` (the state's JSON), `descriptor` in front. */
export function sealState(key: Buffer, descriptor: StateDescriptor, contents: Buffer): Buffer {
  const front = Buffer.concat([MAGIC, Buffer.from(`${JSON.stringify(descriptor)}\n`)]);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(front);
  const body = Buffer.concat([cipher.update(contents), cipher.final()]);
  return Buffer.concat([front, nonce, cipher.getAuthTag(), body]);
}

/** Where the readable front ends, or undefined when `sealed` does not start like a state. */
function frontLength(sealed: Buffer): number | undefined {
  if (!sealed.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const end = sealed.indexOf(0x0a, MAGIC.length);
  if (end < 0 || end > MAX_HEADER_BYTES) return undefined;
  return end + 1;
}

/** The descriptor in front, unauthenticated (for listing); undefined when it is not one. */
export function readDescriptor(sealed: Buffer): StateDescriptor | undefined {
  const end = frontLength(sealed);
  if (end === undefined) return undefined;
  try {
    return JSON.parse(sealed.subarray(MAGIC.length, end - 1).toString('utf8')) as StateDescriptor;
  } catch {
    return undefined;
  }
}

/** The descriptor and contents, authenticated; throws StateUnreadableError saying why not. */
export function openState(
  key: Buffer,
  sealed: Buffer,
): { descriptor: StateDescriptor; contents: Buffer } {
  const end = frontLength(sealed);
  const descriptor = readDescriptor(sealed);
  if (end === undefined || !descriptor || sealed.length < end + NONCE_BYTES + TAG_BYTES) {
    throw new StateUnreadableError('the stored bytes are not a sealed state');
  }
  const nonce = sealed.subarray(end, end + NONCE_BYTES);
  const tag = sealed.subarray(end + NONCE_BYTES, end + NONCE_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(sealed.subarray(0, end));
  decipher.setAuthTag(tag);
  try {
    const body = sealed.subarray(end + NONCE_BYTES + TAG_BYTES);
    return { descriptor, contents: Buffer.concat([decipher.update(body), decipher.final()]) };
  } catch {
    // GCM says only that authentication failed: a wrong key and changed bytes look the same.
    throw new StateUnreadableError(
      'authentication failed (another STATE_KEY, or the bytes were changed)',
    );
  }
}
