import { describe, expect, it } from 'vitest';
import type { StateDescriptor } from '../artifacts/state-store.js';
import { openState, readDescriptor, sealState, StateUnreadableError } from './state-seal.js';

// A saved state at rest (docs/sessions.md#log-in-once-render-many-times): it opens whole under its
// key, and any change (a byte of the contents, of the readable descriptor, a cut) or another key
// is refused as a whole.

const KEY = Buffer.alloc(32, 5);
const descriptor: StateDescriptor = {
  name: 'crm-login',
  origins: ['https://crm.example.com'],
  cookies: 1,
  bytes: 10,
  createdAt: '2026-11-27T09:00:00.000Z',
  labels: {},
};
const contents = Buffer.from('{"cookies":[{"name":"sid","value":"secret"}],"origins":[]}');

describe('sealed states', () => {
  it('opens under its key, the descriptor readable without it and the contents not', () => {
    const sealed = sealState(KEY, descriptor, contents);
    expect(openState(KEY, sealed)).toEqual({ descriptor, contents });
    expect(readDescriptor(sealed)).toEqual(descriptor);
    expect(sealed.includes(Buffer.from('secret'))).toBe(false);
    // A fresh nonce each time: the same state never seals to the same bytes.
    expect(sealState(KEY, descriptor, contents).equals(sealed)).toBe(false);
  });

  it('refuses another key, a changed byte anywhere, and a cut', () => {
    const sealed = sealState(KEY, descriptor, contents);
    expect(() => openState(Buffer.alloc(32, 6), sealed)).toThrow(StateUnreadableError);
    const header = sealed.indexOf('crm-login');
    for (const at of [header, sealed.length - 1, sealed.length - contents.length - 20]) {
      const changed = Buffer.from(sealed);
      changed[at]! ^= 0x01;
      expect(() => openState(KEY, changed), `byte ${at}`).toThrow(StateUnreadableError);
    }
    expect(() => openState(KEY, sealed.subarray(0, 30))).toThrow(StateUnreadableError);
    expect(() => openState(KEY, Buffer.from('not a state'))).toThrow(StateUnreadableError);
  });
});
