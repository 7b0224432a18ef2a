import { withMetadata, type PdfMetadata } from './pdf-metadata.js';
import { protect, type PdfProtection, type QpdfTool } from './pdf-protect.js';

// What happens to a PDF after Chromium printed it (docs/render.md#pdf-options): metadata first,
// protection last (an encrypted file can no longer be edited without its password).

export interface PdfFinish {
  metadata?: PdfMetadata;
  encrypt?: PdfProtection;
}

export async function finishPdf(pdf: Buffer, finish: PdfFinish, qpdf: QpdfTool): Promise<Buffer> {
  let out: Uint8Array = pdf;
  if (finish.metadata) out = await withMetadata(out, finish.metadata);
  if (finish.encrypt) out = await protect(out, finish.encrypt, qpdf);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}
