import {
  PDFArray,
  PDFDict,
  PDFName,
  PDFNull,
  PDFRef,
  PDFStream,
  type PDFContext,
  type PDFDocument,
  type PDFObject,
  type PDFPage,
} from 'pdf-lib';

// Copies the document-level trees of one merged part (its outline and its structure tree) into the
// merged document, object by object. pdf-lib's own copier would copy every page a bookmark or a
// structure element points at (/Dest, /Pg) a second time, as a page outside the page tree; this one
// sends those references to the pages copyPages already made, and the annotations on them
// (docs/render.md#post-v1pdfmerge).

const key = (ref: PDFRef) => ref.toString();

export class PartCopier {
  /** Source object → its copy in the merged document, by reference. */
  readonly #copied = new Map<string, PDFRef>();
  readonly #from: PDFContext;
  readonly #to: PDFContext;

  /** `source`'s pages and `copies` of them, in the same order. */
  constructor(source: PDFDocument, copies: readonly PDFPage[], target: PDFDocument) {
    this.#from = source.context;
    this.#to = target.context;
    for (const [i, page] of source.getPages().entries()) {
      const copy = copies[i];
      if (!copy) continue;
      this.#copied.set(key(page.ref), copy.ref);
      const before = page.node.Annots()?.asArray() ?? [];
      const after = copy.node.Annots()?.asArray() ?? [];
      for (const [j, annot] of before.entries()) {
        const made = after[j];
        if (annot instanceof PDFRef && made instanceof PDFRef) this.#copied.set(key(annot), made);
      }
    }
  }

  /** From here on, `ref` of the source stands for `to` (a tree's root becomes the merged one). */
  alias(ref: PDFObject | undefined, to: PDFRef): void {
    if (ref instanceof PDFRef) this.#copied.set(key(ref), to);
  }

  /**
   * `object` of the source as an object of the merged document, with everything it points at.
   * Keys in `omit` are left out of every dictionary on the way.
   */
  copy(object: PDFObject, omit: ReadonlySet<string> = NONE): PDFObject {
    const made = this.#shallow(object, omit);
    // A queue, not recursion: a long outline is a chain of /Next thousands of objects deep.
    for (let next = this.#pending.pop(); next; next = this.#pending.pop()) {
      this.#to.assign(next.made, this.#shallow(next.source, omit));
    }
    return made;
  }

  readonly #pending: { source: PDFObject; made: PDFRef }[] = [];

  #shallow(object: PDFObject, omit: ReadonlySet<string>): PDFObject {
    if (object instanceof PDFRef) return this.#refTo(object);
    if (object instanceof PDFDict) {
      const out = PDFDict.withContext(this.#to);
      for (const [name, value] of object.entries()) {
        if (!omit.has(name.decodeText())) out.set(name, this.#shallow(value, omit));
      }
      return out;
    }
    if (object instanceof PDFArray) {
      const out = PDFArray.withContext(this.#to);
      for (const value of object.asArray()) out.push(this.#shallow(value, omit));
      return out;
    }
    if (object instanceof PDFStream) {
      const out = object.clone(this.#to);
      for (const [name, value] of object.dict.entries()) {
        out.dict.set(name, this.#shallow(value, omit));
      }
      return out;
    }
    // Names, numbers, strings, booleans and null belong to no document.
    return object;
  }

  /** The merged document's reference for `ref`, its object queued for copying the first time. */
  #refTo(ref: PDFRef): PDFObject {
    const done = this.#copied.get(key(ref));
    if (done) return done;
    const source = this.#from.lookup(ref);
    // A page outside the part's page tree (a bookmark to a page that was not copied): nowhere.
    if (source === undefined || isPage(source)) return PDFNull;
    const made = this.#to.nextRef();
    this.#copied.set(key(ref), made);
    this.#pending.push({ source, made });
    return made;
  }
}

const NONE: ReadonlySet<string> = new Set();

function isPage(object: PDFObject): boolean {
  return object instanceof PDFDict && object.get(PDFName.of('Type')) === PDFName.of('Page');
}
