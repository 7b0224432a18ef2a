import { PDFDocument, PDFName, PDFNumber } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { MergeInputError, mergePdfs } from './pdf-merge.js';

// Stored PDFs come from anywhere: one whose document-level trees are malformed answers a 400
// naming it (docs/render.md#outline-and-tags-of-a-merge), never a 500.

async function onePage(edit: (doc: PDFDocument) => void = () => undefined): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage();
  edit(doc);
  return doc.save();
}

describe('mergePdfs', () => {
  it.each(['Outlines', 'StructTreeRoot'])(
    'refuses a part whose %s is not a dictionary, naming it',
    async (entry) => {
      const broken = await onePage((doc) => {
        doc.catalog.set(PDFName.of(entry), PDFNumber.of(7));
      });
      const error = await mergePdfs([{ pdf: broken }, { pdf: await onePage() }]).catch(
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(MergeInputError);
      expect((error as MergeInputError).index).toBe(0);
      expect((error as MergeInputError).message).toMatch(
        /^its outline or structure tree cannot be read/,
      );
    },
  );

  it('merges untagged parts with one bookmark each', async () => {
    const doc = await mergePdfs([{ pdf: await onePage(), title: 'One' }, { pdf: await onePage() }]);
    expect(doc.getPageCount()).toBe(2);
    expect(doc.catalog.has(PDFName.of('StructTreeRoot'))).toBe(false);
    const outlines = doc.catalog.lookup(PDFName.of('Outlines'));
    expect(outlines?.toString()).toMatch(/\/Count 2/);
  });
});
