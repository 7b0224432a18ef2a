import { randomBytes } from 'node:crypto';
import { createChallenge, randomInt, verifySolution, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { isRecord, type Logger } from '@havn/shared';
import type { ChallengeStore } from '../store/challenges.store.js';
import type { SettingsStore } from '../store/settings.store.js';

// docs/forms.md#spam: proof of work in the ALTCHA v2 format (altcha-lib 2.x). A challenge asks
// for the counter whose SHA-256 of salt ‖ nonce ‖ counter (big-endian uint32) starts with the
// signed key prefix; the server chose that counter at random below `maxNumber`, so a solver tries
// about that many hashes and the server checks a solution with two HMACs.

/** Why a submission to a "pow" form is stored as spam, or 'verified' when it is not. */
export type PowVerdict =
  'verified' | 'missing' | 'malformed' | 'invalid' | 'expired' | 'other-form' | 'replayed' | 'full';

export interface ProofOfWorkOptions {
  /** The counter is drawn from 1..maxNumber: the solver's work. */
  maxNumber?: number;
  /** How long a challenge can be solved and used. */
  ttlMs?: number;
  /** How often expired challenges are swept from the used list. */
  sweepMs?: number;
  /** At most this many used challenges are kept; past it, solutions count as spam until a sweep. */
  maxKept?: number;
}

/** docs/forms.md#spam: the default difficulty, measured to solve in under 1 s at p95. */
export const DEFAULT_MAX_NUMBER = 100_000;
const DEFAULT_TTL_MS = 10 * 60_000;
/** A v2 payload is about 700 characters; anything much longer is not one. */
const MAX_PAYLOAD_LENGTH = 4_096;

interface Keys {
  /** Signs the challenge's parameters. */
  challenge: string;
  /** Signs the expected key, so a solution is checked without hashing again. */
  key: string;
}

/**
 * The solution a submission carries: `submitFields.altcha` in a JSON body, the `altcha` (or
 * `submitFields.altcha`) field of a plain HTML post. Undefined when there is none.
 */
export function powPayloadOf(raw: Buffer, form: { fields: string } | undefined): unknown {
  if (form !== undefined) {
    const params = new URLSearchParams(form.fields);
    return params.get('altcha') ?? params.get('submitFields.altcha') ?? undefined;
  }
  try {
    const body: unknown = JSON.parse(raw.toString('utf8'));
    return isRecord(body) && isRecord(body.submitFields) ? body.submitFields.altcha : undefined;
  } catch {
    return undefined; // the writer thread answers the 400 for a body that is not JSON
  }
}

/** The payload as altcha-lib's `{ challenge, solution }`, or undefined when it is not one. */
function decodePayload(
  payload: unknown,
): { challenge: Challenge; solution: { counter: number; derivedKey: string } } | undefined {
  if (typeof payload !== 'string' || payload.length > MAX_PAYLOAD_LENGTH) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(decoded) || !isRecord(decoded.challenge) || !isRecord(decoded.solution)) {
    return undefined;
  }
  const { parameters, signature } = decoded.challenge;
  const { counter, derivedKey } = decoded.solution;
  if (!isRecord(parameters) || typeof signature !== 'string' || !/^[0-9a-f]{64}$/.test(signature)) {
    return undefined;
  }
  if (typeof counter !== 'number' || typeof derivedKey !== 'string' || derivedKey.length > 128) {
    return undefined;
  }
  return {
    challenge: { parameters: parameters as unknown as Challenge['parameters'], signature },
    solution: { counter, derivedKey },
  };
}

/**
 * Issues proof-of-work challenges bound to one form and checks their solutions: signed with a
 * secret generated once into the database (every instance on it shares it), expiring after
 * `ttlMs`, each usable once (the used ones are kept in the database until they expire).
 */
export class ProofOfWork {
  private keys: Promise<Keys> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private kept = 0;
  readonly maxNumber: number;
  private readonly ttlMs: number;
  private readonly sweepMs: number;
  private readonly maxKept: number;

  constructor(
    private readonly store: { settings: SettingsStore; challenges: ChallengeStore },
    private readonly log: Logger,
    private readonly now: () => number,
    options: ProofOfWorkOptions = {},
  ) {
    this.maxNumber = options.maxNumber ?? DEFAULT_MAX_NUMBER;
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.sweepMs = options.sweepMs ?? 60_000;
    this.maxKept = options.maxKept ?? 200_000;
  }

  private secrets(): Promise<Keys> {
    this.keys ??= this.store.settings
      .getOrCreate('altcha-hmac-keys', () =>
        JSON.stringify({
          challenge: randomBytes(32).toString('hex'),
          key: randomBytes(32).toString('hex'),
        }),
      )
      .then((json) => JSON.parse(json) as Keys)
      .catch((err: unknown) => {
        this.keys = undefined; // asked again next time
        throw err;
      });
    return this.keys;
  }

  /** A new challenge for the form `org/form`. */
  async challenge(org: string, form: string): Promise<Challenge> {
    const keys = await this.secrets();
    return createChallenge({
      algorithm: 'SHA-256',
      cost: 1,
      counter: randomInt(this.maxNumber),
      deriveKey,
      data: { form: `${org}/${form}` },
      expiresAt: Math.floor((this.now() + this.ttlMs) / 1000),
      hmacSignatureSecret: keys.challenge,
      hmacKeySignatureSecret: keys.key,
    });
  }

  /**
   * Whether `payload` is a solution of a challenge this server issued for `org/form`, unexpired
   * and not used before; a verified solution is used up by this call.
   */
  async verify(org: string, form: string, payload: unknown): Promise<PowVerdict> {
    if (payload === undefined || payload === null || payload === '') return 'missing';
    const decoded = decodePayload(payload);
    if (!decoded) return 'malformed';
    const { parameters } = decoded.challenge;
    const expiresAt = typeof parameters.expiresAt === 'number' ? parameters.expiresAt * 1000 : 0;
    if (expiresAt <= this.now()) return 'expired';
    const keys = await this.secrets();
    let verified: boolean;
    try {
      // altcha-lib compares the signatures in constant time.
      const result = await verifySolution({
        challenge: decoded.challenge,
        solution: decoded.solution,
        deriveKey,
        hmacSignatureSecret: keys.challenge,
        hmacKeySignatureSecret: keys.key,
      });
      verified = result.verified;
    } catch {
      verified = false; // parameters it cannot read (a non-hex nonce, an unknown algorithm)
    }
    if (!verified) return 'invalid';
    // Signed, so the form named here is the one the challenge was issued for.
    if (parameters.data?.form !== `${org}/${form}`) return 'other-form';
    if (this.kept >= this.maxKept) return 'full';
    const first = await this.store.challenges.claim(decoded.challenge.signature ?? '', expiresAt);
    if (!first) return 'replayed';
    this.kept++;
    return 'verified';
  }

  /** Sweeps expired challenges now and every `sweepMs`. */
  start(): void {
    this.sweep();
    this.timer = setInterval(() => {
      this.sweep();
    }, this.sweepMs);
    this.timer.unref();
  }

  private sweep(): void {
    if (this.sweeping) return;
    this.sweeping = this.store.challenges
      .sweep(this.now())
      .then(
        (kept) => {
          this.kept = kept;
          if (kept >= this.maxKept) {
            this.log.warn({ kept }, 'proof of work: the used-challenge list is full');
          }
        },
        (err: unknown) => {
          this.log.error({ err }, 'proof of work: the sweep of used challenges failed');
        },
      )
      .finally(() => {
        this.sweeping = undefined;
      });
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }
}
