import { randomFillSync } from 'node:crypto';

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

const timeLength = 10; // 48 bits of milliseconds in 5-bit digits

/** A millisecond time as its `timeLength` base-32 digits. */
function encodeTime(value: number): string {
  let out = '';
  for (let i = 0; i < timeLength; i++) {
    out = alphabet.charAt(value % 32) + out;
    value = Math.floor(value / 32);
  }
  return out;
}

/**
 * Time-ordered ids (ULID layout: 48-bit milliseconds, 80 random bits), monotonic within this
 * process, so `ORDER BY id DESC` is newest first and feeds can page by id. The random part is kept
 * as its 16 base-32 digits and incremented digit by digit: ingest makes two ids per submission,
 * and BigInt arithmetic cost more than the rest of building the submission's rows.
 */
export function createIdGenerator(now: () => number = Date.now): (prefix: string) => string {
  let lastTime = -1;
  let timeDigits = '';
  const random = new Uint8Array(16);
  return (prefix) => {
    const t = now();
    if (t <= lastTime) {
      // Same millisecond (or a clock that went back): the next value after the last one.
      let i = random.length - 1;
      for (; i >= 0 && random[i] === 31; i--) random[i] = 0;
      if (i >= 0) random[i] = (random[i] ?? 0) + 1;
    } else {
      lastTime = t;
      timeDigits = encodeTime(t);
      randomFillSync(random);
      for (let i = 0; i < random.length; i++) random[i] = (random[i] ?? 0) & 31;
      random[0] = (random[0] ?? 0) & 15; // the top bit clear: room to increment
    }
    let randomDigits = '';
    for (const d of random) randomDigits += alphabet.charAt(d);
    return `${prefix}_${timeDigits}${randomDigits}`;
  };
}
