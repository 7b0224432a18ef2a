/** Width and height from a PNG's IHDR chunk (bytes 16-23), after checking the signature. */
export function pngSize(buffer: Buffer): { width: number; height: number } {
  const signature = '89504e470d0a1a0a';
  if (buffer.subarray(0, 8).toString('hex') !== signature) throw new Error('not a PNG');
  return { width: buffer.readUInt32BE(16), height: buffer.readUInt32BE(20) };
}

/** Width and height from a JPEG's first SOFn marker. */
export function jpegSize(buffer: Buffer): { width: number; height: number } {
  if (buffer[0] !== 0xff || buffer[1] !== 0xd8) throw new Error('not a JPEG');
  let i = 2;
  while (i < buffer.length) {
    if (buffer[i] !== 0xff) throw new Error('bad JPEG marker');
    const marker = buffer[i + 1] ?? 0;
    const length = buffer.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: buffer.readUInt16BE(i + 5), width: buffer.readUInt16BE(i + 7) };
    }
    i += 2 + length;
  }
  throw new Error('no JPEG frame header');
}
