import {
  EncryptedPDFError,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  type PDFPage,
  type PDFRef,
} from 'pdf-lib';
import { MergeInputError } from './merge-input-error.js';
import { PartCopier } from './pdf-part-copier.js';
import { mergeStructure, readingPart, structureRoot, type CopiedPart } from './pdf-structure.js';

// Merging PDFs with pdf-lib (docs/render.md#post-v1pdfmerge): pages are copied object by object
// into a new document (fonts and images come along, shared resources stay whole), never bytes
// glued together, and the result has one outline entry per input, pointing at its first page, with
// the input's own outline beneath it; tagged inputs make a tagged result. pdf-lib has no outline
// or structure API, so those dictionaries are written here (PDF 32000 §12.3.3, §14.7).

export interface MergePart {
  pdf: Uint8Array;
  /** The outline entry; the input's own /Title, or "Document N", when absent. */
  title?: string | undefined;
}

export { MergeInputError };

export interface MergeOptions {
  /** A tagged result: every part must be tagged (a stored PDF that is not is refused). */
  tagged?: boolean | undefined;
}

/**
 * One PDF of every part's pages, in order, with an outline entry per part and each part's own
 * outline beneath it. When every part is tagged, so is the result, with one structure tree.
 */
export async function mergePdfs(
  parts: readonly MergePart[],
  options: MergeOptions = {},
): Promise<PDFDocument> {
  const out = await PDFDocument.create({ updateMetadata: false });
  const copied: (CopiedPart & { title: string })[] = [];
  for (const [index, part] of parts.entries()) {
    const source = await loadPart(part.pdf, index);
    const pages = await out.copyPages(source, source.getPageIndices());
    if (pages.length === 0) throw new MergeInputError(index, 'the PDF has no pages');
    for (const page of pages) out.addPage(page);
    copied.push({
      source,
      pages,
      copier: new PartCopier(source, pages, out),
      title: part.title ?? source.getTitle() ?? `Document ${index + 1}`,
    });
  }
  const untagged = copied.findIndex((part, index) =>
    readingPart(index, () => !structureRoot(part.source)),
  );
  if (options.tagged && untagged >= 0) {
    throw new MergeInputError(
      untagged,
      'the PDF is not tagged, and a tagged merge needs every part tagged (render it with pdf.tagged)',
    );
  }
  // Half a structure tree would tell a screen reader the untagged pages hold nothing.
  const tagged = untagged < 0;
  if (tagged) mergeStructure(out, copied);
  writeOutline(out, copied, tagged);
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

/**
 * The outline: one entry per part, in order, each opening its first page fitted, with the part's
 * own bookmarks (their destinations moved to the copied pages) beneath it, open. Bookmarks keep
 * their structure element (/SE) only when the structure tree came along.
 */
function writeOutline(
  doc: PDFDocument,
  parts: readonly (CopiedPart & { title: string })[],
  tagged: boolean,
): void {
  if (parts.length === 0) return;
  const { context } = doc;
  const root = context.nextRef();
  const refs = parts.map(() => context.nextRef());
  const omit = new Set(tagged ? [] : ['SE']);
  let count = 0;
  for (const [i, part] of parts.entries()) {
    const ref = refs[i] as PDFRef;
    const item = context.obj({
      Title: PDFHexString.fromText(part.title),
      Parent: root,
      Dest: [(part.pages[0] as PDFPage).ref, 'Fit'],
    });
    const prev = refs[i - 1];
    const next = refs[i + 1];
    if (prev) item.set(PDFName.of('Prev'), prev);
    if (next) item.set(PDFName.of('Next'), next);
    const own = readingPart(i, () =>
      part.source.catalog.lookupMaybe(PDFName.of('Outlines'), PDFDict),
    );
    const first = own?.get(PDFName.of('First'));
    const last = own?.get(PDFName.of('Last'));
    count += 1;
    if (first && last) {
      part.copier.alias(part.source.catalog.get(PDFName.of('Outlines')), ref);
      readingPart(i, () => {
        item.set(PDFName.of('First'), part.copier.copy(first, omit));
        item.set(PDFName.of('Last'), part.copier.copy(last, omit));
      });
      const visible = Math.max(
        0,
        own?.lookupMaybe(PDFName.of('Count'), PDFNumber)?.asNumber() ?? 0,
      );
      item.set(PDFName.of('Count'), PDFNumber.of(visible));
      count += visible;
    }
    context.assign(ref, item);
  }
  context.assign(
    root,
    context.obj({
      Type: 'Outlines',
      First: refs[0],
      Last: refs[refs.length - 1],
      Count: count,
    }),
  );
  doc.catalog.set(PDFName.of('Outlines'), root);
  // Viewers open the bookmarks pane, so the parts are visible at once.
  doc.catalog.set(PDFName.of('PageMode'), PDFName.of('UseOutlines'));
}
