import { createHash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { FileBytes } from '../../store/file-bytes.js';
import type { UploadRule } from '../../store/forms.store.js';
import { safeFileName } from './file-names.js';
import { formsErrors } from '../../errors.js';

// A multipart ingest body read as it arrives (docs/forms.md#plain-html-posts and #file-uploads):
// its text fields as urlencoded text, each file part of a `file` question written to a file of
// its own on the local disk with its size, SHA-256 and first bytes. busboy reads the parts (the
// platform's Response.formData would hold every file in memory); every limit is enforced while
// the bytes arrive, so a body past one is never read whole.

/** One file part, received into `path` (not kept yet). */
export interface ReceivedFile {
  question: string;
  /** The name as sent, neutralised (safeFileName). */
  name: string;
  path: string;
  size: number;
  sha256: string;
  /** The first bytes, for the type check. */
  head: Buffer;
}

export interface MultipartBody {
  /** The text fields as urlencoded text. */
  fields: string;
  /** The body's exact bytes when it had no files (kept as the raw body then). */
  raw: Buffer | undefined;
  files: ReceivedFile[];
}

export interface MultipartLimits {
  /** The most the body may have without its files (the ingest limit). */
  fieldsBytes: number;
  /** UPLOAD_MAX_BYTES. */
  maxBytes: number;
  /** UPLOAD_MAX_TOTAL_BYTES. */
  maxTotalBytes: number;
}

const headBytes = 16_384;

/**
 * Reads `stream`; rejects with the HttpError to answer (400 malformed or too many files, 413 a
 * limit, 415 a file part for anything but a `file` question), after removing every file it
 * received. The caller removes the files of a body it resolved with, kept or not.
 */
export function readMultipart(
  stream: Readable,
  contentType: string,
  uploads: Readonly<Record<string, UploadRule>>,
  limits: MultipartLimits,
  incoming: Pick<FileBytes, 'incomingPath' | 'syncsReceived'>,
): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        // Browsers send a file's name as raw UTF-8.
        defParamCharset: 'utf8',
        limits: {
          fieldSize: limits.fieldsBytes,
          fieldNameSize: 200,
          fields: 1000,
          files: 100,
          parts: 1100,
          fileSize: limits.maxBytes + 1,
        },
      });
    } catch {
      reject(formsErrors.error('MULTIPART_INVALID'));
      return;
    }
    // Each field urlencoded as it arrives. Not URLSearchParams: its encoder builds the text one
    // character at a time, and a 100 KB answer then cost 20 ms of CPU, most of it garbage
    // collection; encodeURIComponent is native (and the parser reads %20 as it reads +). busboy's
    // decoders never yield a lone surrogate, the one thing it would throw on.
    const fields: string[] = [];
    const files: ReceivedFile[] = [];
    const outputs: WriteStream[] = [];
    const writes: Promise<void>[] = [];
    const perQuestion = new Map<string, number>();
    let raw: Buffer[] | undefined = [];
    let received = 0;
    let fieldBytes = 0;
    let fileBytes = 0;
    let failed = false;
    // Multipart framing adds a little to every part; anything far past the limits is no upload.
    const bodyCap = limits.fieldsBytes + limits.maxTotalBytes + 256 * 1024;

    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      stream.unpipe(parser);
      // The rest of the body is read and dropped, so the answer reaches a client still sending.
      stream.resume();
      for (const out of outputs) out.destroy();
      // A stream destroyed while its file is still being opened creates it yet: each is removed
      // once its stream has closed.
      void Promise.allSettled(writes)
        .then(() => Promise.all(files.map((f) => rm(f.path, { force: true }))))
        .finally(() => {
          reject(err);
        });
    };
    const tooLarge = () =>
      formsErrors.error('FILES_TOO_LARGE', {
        total: limits.maxTotalBytes,
        fields: limits.fieldsBytes,
      });

    stream.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (raw && received <= limits.fieldsBytes) raw.push(chunk);
      else raw = undefined;
      if (received > bodyCap) {
        if (!failed) fail(tooLarge());
        // A client that keeps sending far past every limit is cut off.
        else if (received > 4 * bodyCap) stream.destroy();
      }
    });
    // A client that goes away mid-body (an aborted upload) ends the read: its files are removed.
    const cutOff = () => {
      fail(formsErrors.error('BODY_CUT_OFF'));
    };
    stream.on('error', cutOff);
    stream.on('aborted', cutOff);
    stream.on('close', () => {
      if (!stream.readableEnded) cutOff();
    });

    parser.on('field', (name, value, info) => {
      if (failed) return;
      fieldBytes += name.length + value.length;
      if (info.valueTruncated || fieldBytes > limits.fieldsBytes) {
        fail(formsErrors.error('FIELDS_TOO_LARGE', { bytes: limits.fieldsBytes }));
        return;
      }
      fields.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    });

    parser.on('file', (question, part, info) => {
      const rule = uploads[question];
      if (failed) {
        part.resume();
        return;
      }
      if (!rule) {
        part.resume();
        fail(formsErrors.error('FILE_PART_UNEXPECTED', { question }));
        return;
      }
      // A file input left empty is sent as a part with no name and no bytes: no answer.
      if (!info.filename) {
        part.resume();
        return;
      }
      const name = safeFileName(info.filename);
      const count = (perQuestion.get(question) ?? 0) + 1;
      perQuestion.set(question, count);
      if (count > rule.maxFiles) {
        part.resume();
        fail(formsErrors.error('TOO_MANY_FILES', { question, max: rule.maxFiles }));
        return;
      }
      const cap = Math.min(rule.maxBytes ?? limits.maxBytes, limits.maxBytes);
      const file: ReceivedFile = {
        question,
        name,
        path: incoming.incomingPath(),
        size: 0,
        sha256: '',
        head: Buffer.alloc(0),
      };
      files.push(file);
      const hash = createHash('sha256');
      const head: Buffer[] = [];
      let headLength = 0;
      const out = createWriteStream(file.path, { flags: 'wx', flush: incoming.syncsReceived });
      outputs.push(out);
      part.on('data', (chunk: Buffer) => {
        // After a failure the part is only drained: its stream is closed and its hash is done.
        if (failed) return;
        file.size += chunk.length;
        fileBytes += chunk.length;
        if (file.size > cap) {
          fail(formsErrors.error('FILE_TOO_LARGE', { question, name, cap }));
        } else if (fileBytes > limits.maxTotalBytes) {
          fail(tooLarge());
        }
        hash.update(chunk);
        if (headLength < headBytes) {
          head.push(chunk);
          headLength += chunk.length;
        }
      });
      writes.push(
        new Promise((done, error) => {
          out.on('close', () => {
            if (!failed) {
              file.sha256 = hash.digest('hex');
              file.head = Buffer.concat(head).subarray(0, headBytes);
            }
            done();
          });
          out.on('error', error);
        }),
      );
      part.pipe(out);
    });

    const tooMany = () => {
      fail(formsErrors.error('TOO_MANY_PARTS'));
    };
    parser.on('partsLimit', tooMany);
    parser.on('filesLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('error', () => {
      fail(formsErrors.error('MULTIPART_INVALID'));
    });
    parser.on('close', () => {
      Promise.all(writes).then(
        () => {
          if (failed) return;
          if (files.length === 0 && raw === undefined) {
            fail(formsErrors.error('BODY_TOO_LARGE', { bytes: limits.fieldsBytes }));
            return;
          }
          resolve({
            fields: fields.join('&'),
            raw: files.length === 0 && raw ? Buffer.concat(raw) : undefined,
            files,
          });
        },
        () => {
          fail(new Error('a received file could not be written'));
        },
      );
    });
    stream.pipe(parser);
  });
}
