// Proof of work for "pow" forms (docs/forms-web.md#spam-protection), in the ALTCHA v2 format the
// server's altcha-lib makes (docs/forms.md#spam): find the counter whose SHA-256 of
// salt ‖ nonce ‖ counter (big-endian uint32), hashed `cost` times, starts with the key prefix.
//
// Written here rather than taken from altcha-lib: its browser entry brings the other algorithms
// (PBKDF2, scrypt, Argon2), the worker plumbing and the widget helpers, several times this whole
// runtime, for a loop of a dozen lines. Solving runs on the page's main thread, not in a Worker: a
// Worker needs a script URL or a blob: URL, which the host page's CSP (worker-src, script-src) may
// refuse, and the runtime must work on any page. It stays light there: each SHA-256 is
// SubtleCrypto's, answered asynchronously, and the loop hands the thread back to the page at least
// every 8 ms, so typing never waits for it.
import type { ChallengeAnswer as Challenge } from '@havn/forms/wire';
import { sha256 } from './sha256.js';

const hexBytes = (hex: string): Uint8Array =>
  new Uint8Array((hex.match(/../g) ?? []).map((h) => parseInt(h, 16)));
const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** A macrotask turn: the page's input and rendering run before the loop goes on. */
function yieldToPage(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/** SHA-256 from SubtleCrypto; only pages served over plain http lack it (no secure context). */
type Bytes = Uint8Array<ArrayBuffer>;

function digester(): (data: Bytes) => Promise<Bytes> | Bytes {
  const subtle = globalThis.isSecureContext ? crypto.subtle : undefined;
  if (subtle) return async (data) => new Uint8Array(await subtle.digest('SHA-256', data));
  return sha256;
}

/** The base64 payload the server checks: `{ challenge, solution }`; undefined when unsolvable. */
export async function solve(
  challenge: Challenge,
  signal: AbortSignal,
  limit = 10_000_000,
): Promise<string | undefined> {
  const { algorithm, nonce, salt, cost, keyLength, keyPrefix } = challenge.parameters;
  if (algorithm !== 'SHA-256' || keyPrefix.length % 2 !== 0) return undefined;
  const prefix = hexBytes(keyPrefix);
  const saltBytes = hexBytes(salt);
  const nonceBytes = hexBytes(nonce);
  const input = new Uint8Array(saltBytes.length + nonceBytes.length + 4);
  input.set(saltBytes);
  input.set(nonceBytes, saltBytes.length);
  const view = new DataView(input.buffer);
  const digest = digester();
  const started = performance.now();
  let turn = started;
  for (let counter = 0; counter <= limit; counter++) {
    view.setUint32(input.length - 4, counter);
    let key = await digest(input);
    for (let i = 1; i < cost; i++) key = await digest(key);
    if (prefix.every((b, i) => key[i] === b)) {
      const solution = {
        counter,
        derivedKey: toHex(key.slice(0, keyLength)),
        time: Math.round(performance.now() - started),
      };
      return btoa(JSON.stringify({ challenge, solution }));
    }
    if (performance.now() - turn > 8) {
      if (signal.aborted) return undefined;
      await yieldToPage();
      turn = performance.now();
    }
  }
  return undefined;
}

/**
 * Keeps one solution ready for the next send: fetches a challenge and solves it in the background
 * from the moment it starts, so the person types meanwhile. A solution counts once on the server,
 * so `take` hands it out and the next send (a retry) solves a new one.
 */
export class PowSolver {
  private pending: Promise<string | undefined> | undefined;
  private readonly abort = new AbortController();

  constructor(private readonly challengeUrl: string) {}

  /** Starts fetching and solving a challenge, unless one is under way or ready. */
  start(): void {
    this.pending ??= this.fetchAndSolve();
  }

  /** The solution for this send (waiting for it if need be); undefined when none could be made. */
  async take(): Promise<string | undefined> {
    this.start();
    let solution = await this.pending;
    this.pending = undefined;
    if (solution === undefined && !this.abort.signal.aborted) {
      // The challenge could not be had at load (offline then, say): one more try now.
      solution = await this.fetchAndSolve();
    }
    return solution;
  }

  stop(): void {
    this.abort.abort();
  }

  private async fetchAndSolve(): Promise<string | undefined> {
    try {
      const res = await fetch(this.challengeUrl, {
        credentials: 'include',
        cache: 'no-store',
        headers: { accept: 'application/json' },
        signal: this.abort.signal,
      });
      if (!res.ok) return undefined;
      return await solve((await res.json()) as Challenge, this.abort.signal);
    } catch {
      // No challenge (offline, refused): the send goes without, and the server keeps the answers
      // as spam rather than losing them.
      return undefined;
    }
  }
}
