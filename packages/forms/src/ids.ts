import { randomBytes } from 'node:crypto';

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

function encode(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = (alphabet[Number(value & 31n)] ?? '0') + out;
    value >>= 5n;
  }
  return out;
}

/**
 * Time-ordered ids (ULID layout: 48-bit milliseconds, 80 random bits), monotonic within this
 * process, so `ORDER BY id DESC` is newest first and feeds can page by id.
 */
export function createIdGenerator(now: () => number = Date.now): (prefix: string) => string {
  let lastTime = -1;
  let lastRandom = 0n;
  return (prefix) => {
    const t = now();
    if (t <= lastTime) {
      lastRandom += 1n;
    } else {
      lastTime = t;
      lastRandom = BigInt(`0x${randomBytes(10).toString('hex')}`) >> 1n; // room to increment
    }
    return `${prefix}_${encode(BigInt(lastTime), 10)}${encode(lastRandom, 16)}`;
  };
}
