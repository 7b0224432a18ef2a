import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isRecord } from '@havn/shared';
import type { SettingsStore } from '../../store/settings.store.js';
import type { FileAnswer } from '../../wire/submissions.js';
import { isFileList } from '../ingest.service.js';

// docs/forms.md#file-uploads: a webhook carries, per file, a link that works without a token
// until it expires: the download path with `expires` (Unix seconds) and an HMAC-SHA256 of the
// path and the expiry under a key kept in the database, so every instance on it accepts the
// links any of them made. Changing one byte of the path, the expiry or the signature breaks it.

export interface FileRef {
  org: string;
  form: string;
  submission: string;
  file: string;
}

/** The download path of a file (docs/forms.md#file-uploads). */
export function filePath(ref: FileRef): string {
  const e = encodeURIComponent;
  return `/api/orgs/${e(ref.org)}/forms/${e(ref.form)}/submissions/${e(ref.submission)}/files/${e(ref.file)}`;
}

/** What `link` reads of a record. */
export interface LinkedRecord {
  id: string;
  org: string;
  form: string;
  answers: Record<string, unknown>;
  submitFields?: Record<string, unknown> | null;
}

export class FileLinks {
  private key: Promise<Buffer> | undefined;

  constructor(
    private readonly settings: SettingsStore,
    private readonly ttlSeconds: number,
    private readonly now: () => number,
  ) {}

  /**
   * A webhook body (docs/forms.md#webhooks) with a signed, absolute `url` on each of its files
   * (docs/forms.md#file-uploads); a body without files is returned as it is, unparsed.
   */
  async withLinks(payload: string, baseUrl: string): Promise<string> {
    if (!payload.includes('"sha256":')) return payload;
    const body = JSON.parse(payload) as { data: LinkedRecord } & Record<string, unknown>;
    await this.link(body.data, baseUrl);
    return JSON.stringify(body);
  }

  /**
   * Puts a signed, absolute `url` on each file of a record's answers (hidden ones too): the
   * webhook body, and the full record the inbox links its files from.
   */
  async link(record: LinkedRecord, baseUrl: string): Promise<void> {
    const hidden = record.submitFields?.hiddenAnswers;
    const lists = [
      ...Object.values(record.answers),
      ...(isRecord(hidden) ? Object.values(hidden) : []),
    ].filter(isFileList);
    for (const list of lists) {
      for (const file of list as (FileAnswer & { url?: string })[]) {
        const ref = { org: record.org, form: record.form, submission: record.id, file: file.id };
        file.url = `${baseUrl}${await this.signedPath(ref)}`;
      }
    }
  }

  private secret(): Promise<Buffer> {
    this.key ??= this.settings
      .getOrCreate('file-link-key', () => randomBytes(32).toString('hex'))
      .then((hex) => Buffer.from(hex, 'hex'))
      .catch((err: unknown) => {
        this.key = undefined; // asked again next time
        throw err;
      });
    return this.key;
  }

  private async sign(ref: FileRef, expires: number): Promise<Buffer> {
    return createHmac('sha256', await this.secret())
      .update(`${filePath(ref)}\n${String(expires)}`)
      .digest();
  }

  /** The path with `expires` and `signature`, good for UPLOAD_URL_TTL_SECONDS from now. */
  async signedPath(ref: FileRef): Promise<string> {
    const expires = Math.floor(this.now() / 1000) + this.ttlSeconds;
    const signature = (await this.sign(ref, expires)).toString('base64url');
    return `${filePath(ref)}?expires=${String(expires)}&signature=${signature}`;
  }

  /** Whether the signature is this server's for the file and the expiry, and it has not passed. */
  async verify(ref: FileRef, expires: string, signature: string): Promise<boolean> {
    const at = Number(expires);
    if (!/^[0-9]{1,12}$/.test(expires) || at * 1000 <= this.now()) return false;
    // Compared as the text the link carries, not as decoded bytes: base64url's last character
    // holds bits the decoder ignores, so another spelling of the same bytes would pass.
    const expected = Buffer.from((await this.sign(ref, at)).toString('base64url'));
    const given = Buffer.from(signature);
    // Constant time: a signature is not guessed a byte at a time from how fast it is refused.
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
