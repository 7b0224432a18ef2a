import { PDFDocument } from 'pdf-lib';
import { writeMetadata, type PdfMetadata } from './pdf-metadata.js';
import { protect, type PdfProtection, type QpdfTool } from './pdf-protect.js';

// What happens to a PDF after Chromium printed it or the parts were merged
// (docs/render.md#pdf-options): metadata first, protection last (an encrypted file can no longer
// be edited without its password).

export interface PdfFinish {
  metadata?: PdfMetadata;
  encrypt?: PdfProtection;
}

/** A printed PDF with its metadata and protection applied; untouched when `finish` is empty. */
export async function finishPdf(pdf: Buffer, finish: PdfFinish, qpdf: QpdfTool): Promise<Buffer> {
  if (!finish.metadata) return finish.encrypt ? protect(pdf, finish.encrypt, qpdf) : pdf;
  return finishDocument(await PDFDocument.load(pdf, { updateMetadata: false }), finish, qpdf);
}

/** An open document saved with its metadata and protection applied. */
export async function finishDocument(
  doc: PDFDocument,
  finish: PdfFinish,
  qpdf: QpdfTool,
): Promise<Buffer> {
  if (finish.metadata) writeMetadata(doc, finish.metadata);
  const saved = await doc.save({ useObjectStreams: false });
  if (finish.encrypt) return protect(saved, finish.encrypt, qpdf);
  return Buffer.from(saved.buffer, saved.byteOffset, saved.byteLength);
}
