import { fileTypeFromBuffer } from 'file-type';

// docs/forms.md#file-uploads: a file's type is read from its own bytes (magic numbers), never
// taken from its name or the type its sender declared. file-type knows the binary formats; a
// file it does not know is text when its first bytes are UTF-8 without NUL (markup among it is
// HTML), and anything else is application/octet-stream.

export interface SniffedType {
  mime: string;
  /** The extension the type is known by (`pdf`, `png`, `txt`). */
  ext: string;
}

/** Extensions that name the same type (file-type answers the first). */
const sameExtension: Record<string, readonly string[]> = {
  jpg: ['jpg', 'jpeg', 'jpe'],
  tif: ['tif', 'tiff'],
  html: ['html', 'htm'],
  txt: ['txt', 'text', 'log'],
  mp4: ['mp4', 'm4v'],
};

const textByExtension: Record<string, SniffedType> = {
  csv: { mime: 'text/csv', ext: 'csv' },
  md: { mime: 'text/markdown', ext: 'md' },
  json: { mime: 'application/json', ext: 'json' },
};

/**
 * The type of a received file's bytes from `head`, its first bytes (16 KiB, kept while it
 * arrived: more than file-type reads for any format it knows by its start).
 */
export async function sniffType(head: Uint8Array, name: string): Promise<SniffedType> {
  const known = await fileTypeFromBuffer(head);
  if (known) return { mime: known.mime, ext: known.ext };
  if (head.includes(0)) return { mime: 'application/octet-stream', ext: 'bin' };
  let text: string;
  try {
    // `stream: true`: the head may end inside a character.
    text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
  } catch {
    return { mime: 'application/octet-stream', ext: 'bin' };
  }
  if (/^\uFEFF?\s*</.test(text)) {
    return /^\uFEFF?\s*(<\?xml[^>]*>\s*)?<svg[\s>]/i.test(text)
      ? { mime: 'image/svg+xml', ext: 'svg' }
      : { mime: 'text/html', ext: 'html' };
  }
  return textByExtension[extensionOf(name)] ?? { mime: 'text/plain', ext: 'txt' };
}

/** The name's extension in lower case, '' without one. */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

function extensionsOf(type: SniffedType): readonly string[] {
  return sameExtension[type.ext] ?? [type.ext];
}

/** Whether `accept` (MIME types, `type/*` and `.ext`; empty takes anything) takes the type. */
export function accepts(accept: readonly string[], type: SniffedType): boolean {
  if (accept.length === 0) return true;
  return accept.some((a) => {
    if (a.startsWith('.')) return extensionsOf(type).includes(a.slice(1).toLowerCase());
    if (a.endsWith('/*')) return type.mime.startsWith(a.slice(0, -1));
    return a === type.mime;
  });
}

/**
 * Whether the name's own extension agrees with the bytes: `photo.png` that is a PDF does not.
 * A name without an extension, or text under any text extension, agrees.
 */
export function nameAgrees(name: string, type: SniffedType): boolean {
  const ext = extensionOf(name);
  if (ext === '') return true;
  if (type.mime.startsWith('text/plain')) return !knownBinaryExtensions.has(ext);
  return extensionsOf(type).includes(ext);
}

/** Extensions a person reads as a binary format: text under one of them is a disguise. */
const knownBinaryExtensions = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'pdf',
  'zip',
  'docx',
  'xlsx',
  'pptx',
  'doc',
  'xls',
  'exe',
  'heic',
  'avif',
  'tif',
  'tiff',
  'bmp',
  'mp3',
  'mp4',
  'mov',
  'odt',
  'ods',
  'gz',
  'rar',
  '7z',
]);
