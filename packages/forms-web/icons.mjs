// The PWA icons, drawn at build time so the repository holds no binaries: a rounded blue square
// with a white envelope-like "inbox" tray. A minimal PNG encoder (RGBA, zlib from Node).
import { Buffer } from 'node:buffer';
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A size×size PNG of the Havn inbox icon (maskable: the drawing keeps to the safe zone). */
export function pngIcon(size) {
  const raw = Buffer.alloc(size * (size * 4 + 1));
  const s = (v) => v * size;
  for (let y = 0; y < size; y++) {
    const row = y * (size * 4 + 1);
    raw[row] = 0; // filter: none
    for (let x = 0; x < size; x++) {
      // Blue background everywhere; a white tray (a U shape) in the middle.
      let [r, g, b] = [11, 87, 208];
      const inTray = x > s(0.28) && x < s(0.72) && y > s(0.3) && y < s(0.7);
      const hollow = x > s(0.34) && x < s(0.66) && y > s(0.3) && y < s(0.52);
      const slot = x > s(0.42) && x < s(0.58) && y >= s(0.52) && y < s(0.58);
      if (inTray && !hollow && !slot) [r, g, b] = [255, 255, 255];
      const o = row + 1 + x * 4;
      raw[o] = r;
      raw[o + 1] = g;
      raw[o + 2] = b;
      raw[o + 3] = 255;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
