// docs/forms.md#file-uploads: a file's name is whatever its sender typed, so it is treated as
// hostile. It is never a path (files are kept under ids), and the name kept for it has no
// control characters, no path separators and no bidirectional overrides, which could make
// `cv‮fdp.exe` read as `cv.exe.pdf` in the inbox or a mail.

// C0 and C1 controls, and every bidirectional control: embeddings, overrides, isolates, marks.
// eslint-disable-next-line no-control-regex -- control characters are what this removes
const unsafe = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const separators = /[/\\]/g;
const maxLength = 200;

/** The name a file is kept and shown under: hostile characters neutralised, never empty. */
export function safeFileName(name: string): string {
  let safe = name.normalize('NFC').replace(unsafe, '').replace(separators, '_').trim();
  // `.` and `..` name directories, and a leading dot hides a file in most file managers.
  safe = safe.replace(/^\.+/, '');
  if (safe.length > maxLength) {
    // Keep the extension: it is what a person (and their computer) reads the type from.
    const dot = safe.lastIndexOf('.');
    const ext = dot > 0 && safe.length - dot <= 16 ? safe.slice(dot) : '';
    // Cut by UTF-16 units, without leaving half of a surrogate pair behind.
    safe = safe.slice(0, maxLength - ext.length).replace(/[\uD800-\uDBFF]$/, '') + ext;
  }
  return safe === '' ? 'file' : safe;
}

/**
 * `Content-Disposition: attachment` with the name twice, as RFC 6266 asks: an ASCII `filename`
 * for old clients (anything else replaced by `_`) and the exact name as RFC 8187 `filename*`.
 */
export function attachmentDisposition(name: string): string {
  const safe = safeFileName(name);
  const ascii = safe.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(safe).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * A stored file as a person reads it in a mail or a spreadsheet, `cv.pdf (2.9 MB)`; undefined
 * for a value that is no file answer.
 */
export function fileLabel(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, size, sha256 } = value as Record<string, unknown>;
  if (typeof name !== 'string' || typeof size !== 'number' || typeof sha256 !== 'string') {
    return undefined;
  }
  const shown =
    size < 1024
      ? `${String(size)} B`
      : size < 1024 * 1024
        ? `${(size / 1024).toFixed(1)} KB`
        : `${(size / 1024 / 1024).toFixed(1)} MB`;
  return `${name} (${shown})`;
}
