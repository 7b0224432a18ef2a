// SHA-256 (FIPS 180-4) for pages without SubtleCrypto: it exists only in secure contexts, and a
// form embedded on a page served over plain http must still be able to prove its work
// (docs/forms-web.md#spam-protection). Small and synchronous; the solver yields between chunks.

const K = new Uint32Array(64);
// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
for (let n = 2, i = 0; i < 64; n++) {
  let prime = true;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) prime = false;
  if (prime) K[i++] = (Math.cbrt(n) % 1) * 2 ** 32;
}
const H0 = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];
const W = new Uint32Array(64);

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** The SHA-256 digest of `data`. */
export function sha256(data: Uint8Array): Uint8Array<ArrayBuffer> {
  const blocks = Math.ceil((data.length + 9) / 64);
  const m = new Uint8Array(blocks * 64);
  m.set(data);
  m[data.length] = 0x80;
  const view = new DataView(m.buffer);
  view.setUint32(m.length - 4, data.length * 8); // lengths under 512 MiB: the high word is 0
  const h = H0.slice();
  for (let b = 0; b < blocks; b++) {
    for (let t = 0; t < 64; t++) {
      if (t < 16) W[t] = view.getUint32(b * 64 + t * 4);
      else {
        const w15 = W[t - 15] ?? 0;
        const w2 = W[t - 2] ?? 0;
        const s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3);
        const s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10);
        W[t] = (W[t - 16] ?? 0) + s0 + (W[t - 7] ?? 0) + s1;
      }
    }
    let [a, bb, c, d, e, f, g, hh] = h as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    for (let t = 0; t < 64; t++) {
      const t1 =
        (hh +
          (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +
          ((e & f) ^ (~e & g)) +
          (K[t] ?? 0) +
          (W[t] ?? 0)) |
        0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c))) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = bb;
      bb = a;
      a = (t1 + t2) | 0;
    }
    [a, bb, c, d, e, f, g, hh].forEach((v, i) => (h[i] = ((h[i] ?? 0) + v) | 0));
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  h.forEach((v, i) => {
    outView.setUint32(i * 4, v >>> 0);
  });
  return out;
}
