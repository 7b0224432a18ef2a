import { EncryptedPDFError, PDFDocument, PDFHexString, PDFName, type PDFRef } from 'pdf-lib';

// Merging PDFs with pdf-lib (docs/render.md#post-v1pdfmerge): pages are copied object by object
// into a new document (fonts and images come along, shared resources stay whole), never bytes
// glued together, and the result has one outline entry per input, pointing at its first page.
// pdf-lib has no outline API, so the outline dictionaries are written here (PDF 32000 §12.3.3).

export interface MergePart {
  pdf: Uint8Array;
  /** The outline entry; the input's own /Title, or "Document N", when absent. */
  title?: string | undefined;
}

/** An input pdf-lib cannot read (encrypted, or not a PDF at all). */
export class MergeInputError extends Error {
  constructor(
    readonly index: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'MergeInputError';
  }
}

/** One PDF of every part's pages, in order, with an outline entry per part. */
export async function mergePdfs(parts: readonly MergePart[]): Promise<PDFDocument> {
  const out = await PDFDocument.create({ updateMetadata: false });
  const entries: { title: string; page: PDFRef }[] = [];
  for (const [index, part] of parts.entries()) {
    const source = await loadPart(part.pdf, index);
    const pages = await out.copyPages(source, source.getPageIndices());
    const first = pages[0];
    if (!first) throw new MergeInputError(index, 'the PDF has no pages');
    for (const page of pages) out.addPage(page);
    entries.push({
      title: part.title ?? source.getTitle() ?? `Document ${index + 1}`,
      page: first.ref,
    });
  }
  writeOutline(out, entries);
  return out;
}

async function loadPart(pdf: Uint8Array, index: number): Promise<PDFDocument> {
  try {
    return await PDFDocument.load(pdf, { updateMetadata: false });
  } catch (err) {
    // pdf-lib's EncryptedPDFError (matched by message too: its class differs between its builds).
    if (err instanceof EncryptedPDFError || /is encrypted/.test((err as Error).message)) {
      throw new MergeInputError(
        index,
        'the PDF is encrypted; merge unprotected PDFs and protect the result with pdf.encrypt',
      );
    }
    throw new MergeInputError(index, `not a readable PDF (${(err as Error).message})`);
  }
}

/** A flat outline: one entry per part, in order, each opening its first page fitted. */
function writeOutline(doc: PDFDocument, entries: readonly { title: string; page: PDFRef }[]): void {
  if (entries.length === 0) return;
  const { context } = doc;
  const root = context.nextRef();
  const refs = entries.map(() => context.nextRef());
  for (const [i, entry] of entries.entries()) {
    const item = context.obj({
      Title: PDFHexString.fromText(entry.title),
      Parent: root,
      Dest: [entry.page, 'Fit'],
    });
    const prev = refs[i - 1];
    const next = refs[i + 1];
    if (prev) item.set(PDFName.of('Prev'), prev);
    if (next) item.set(PDFName.of('Next'), next);
    context.assign(refs[i] as PDFRef, item);
  }
  context.assign(
    root,
    context.obj({
      Type: 'Outlines',
      First: refs[0],
      Last: refs[refs.length - 1],
      Count: refs.length,
    }),
  );
  doc.catalog.set(PDFName.of('Outlines'), root);
  // Viewers open the bookmarks pane, so the parts are visible at once.
  doc.catalog.set(PDFName.of('PageMode'), PDFName.of('UseOutlines'));
}
