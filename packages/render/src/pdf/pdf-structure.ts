import {
  PDFArray,
  PDFDict,
  PDFName,
  PDFNumber,
  type PDFDocument,
  type PDFObject,
  type PDFPage,
} from 'pdf-lib';
import { MergeInputError } from './merge-input-error.js';
import type { PartCopier } from './pdf-part-copier.js';

// One structure tree for a merge of tagged parts (PDF 32000 §14.7): one Document element (a tagged
// PDF has a single root element) holding each part's top elements in order, a part's own Document
// becoming a Part, and one parent tree whose keys are the parts' keys moved past each other's. A page's /StructParents and an annotation's /StructParent move with them, so
// every marked-content sequence still finds its element (docs/render.md#post-v1pdfmerge).

/** A part already copied: its source, the copies of its pages, and the copier that made them. */
export interface CopiedPart {
  source: PDFDocument;
  pages: readonly PDFPage[];
  copier: PartCopier;
}

const name = (n: string) => PDFName.of(n);

/**
 * Runs `read` on part `index`'s document-level trees; a malformed one (an outline or structure
 * entry of the wrong kind) is a 400 naming the input, not a 500.
 */
export function readingPart<T>(index: number, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof MergeInputError) throw err;
    throw new MergeInputError(
      index,
      `its outline or structure tree cannot be read (${(err as Error).message})`,
    );
  }
}

/** The part's structure tree root, when it is tagged. */
export function structureRoot(doc: PDFDocument): PDFDict | undefined {
  return doc.catalog.lookupMaybe(name('StructTreeRoot'), PDFDict);
}

/** Writes the merged structure tree; every part must have one (structureRoot). */
export function mergeStructure(doc: PDFDocument, parts: readonly CopiedPart[]): void {
  const { context, catalog } = doc;
  const root = context.nextRef();
  const document = context.nextRef();
  const kids = PDFArray.withContext(context);
  const nums: [number, PDFObject][] = [];
  const roleMap = PDFDict.withContext(context);
  const classMap = PDFDict.withContext(context);
  const documentLang = parts
    .map((p) => p.source.catalog.get(name('Lang')))
    .find((lang) => lang !== undefined);
  let offset = 0;
  for (const [index, { source, pages, copier }] of parts.entries()) {
    readingPart(index, () => {
      const tree = structureRoot(source);
      if (!tree) return;
      copier.alias(source.catalog.get(name('StructTreeRoot')), document);
      // A part in another language than the document says so on its own elements.
      const lang = source.catalog.get(name('Lang'));
      const top = tree.get(name('K'));
      for (const element of top instanceof PDFArray ? top.asArray() : top ? [top] : []) {
        const made = copier.copy(element);
        const dict = context.lookupMaybe(made, PDFDict);
        if (dict?.get(name('S')) === name('Document')) dict.set(name('S'), name('Part'));
        if (dict && lang && lang.toString() !== documentLang?.toString()) {
          dict.set(name('Lang'), lang);
        }
        kids.push(made);
      }
      let next = 0;
      for (const [key, value] of numberTree(source, tree.get(name('ParentTree')))) {
        nums.push([key + offset, copier.copy(value)]);
        next = Math.max(next, key + 1);
      }
      const declared = tree.lookupMaybe(name('ParentTreeNextKey'), PDFNumber)?.asNumber() ?? 0;
      shiftStructParents(doc, pages, offset);
      for (const [map, into] of [
        ['RoleMap', roleMap],
        ['ClassMap', classMap],
      ] as const) {
        const entries = tree.lookupMaybe(name(map), PDFDict)?.entries() ?? [];
        for (const [k, v] of entries) if (!into.has(k)) into.set(k, copier.copy(v));
      }
      offset += Math.max(next, declared);
    });
  }
  nums.sort((a, b) => a[0] - b[0]);
  const parentTree = context.obj({
    Nums: nums.flatMap(([key, value]) => [PDFNumber.of(key), value]),
  });
  context.assign(document, context.obj({ Type: 'StructElem', S: 'Document', P: root, K: kids }));
  const rootDict = context.obj({
    Type: 'StructTreeRoot',
    K: document,
    ParentTree: context.register(parentTree),
    ParentTreeNextKey: offset,
  });
  if (roleMap.keys().length > 0) rootDict.set(name('RoleMap'), roleMap);
  if (classMap.keys().length > 0) rootDict.set(name('ClassMap'), classMap);
  context.assign(root, rootDict);
  catalog.set(name('StructTreeRoot'), root);
  catalog.set(name('MarkInfo'), context.obj({ Marked: true }));
  if (documentLang) catalog.set(name('Lang'), documentLang);
}

/** The [key, value] pairs of a number tree (its /Nums, and its /Kids' in order). */
function numberTree(doc: PDFDocument, node: PDFObject | undefined): [number, PDFObject][] {
  const dict = node === undefined ? undefined : doc.context.lookupMaybe(node, PDFDict);
  if (!dict) return [];
  const pairs: [number, PDFObject][] = [];
  const nums = dict.lookupMaybe(name('Nums'), PDFArray)?.asArray() ?? [];
  for (let i = 0; i + 1 < nums.length; i += 2) {
    const key = nums[i];
    const value = nums[i + 1];
    if (key instanceof PDFNumber && value !== undefined) pairs.push([key.asNumber(), value]);
  }
  for (const kid of dict.lookupMaybe(name('Kids'), PDFArray)?.asArray() ?? []) {
    pairs.push(...numberTree(doc, kid));
  }
  return pairs;
}

/** Moves the parent-tree keys of copied pages and of the annotations on them by `offset`. */
function shiftStructParents(doc: PDFDocument, pages: readonly PDFPage[], offset: number): void {
  const shift = (dict: PDFDict | undefined, key: string) => {
    const value = dict?.lookupMaybe(name(key), PDFNumber);
    if (dict && value) dict.set(name(key), PDFNumber.of(value.asNumber() + offset));
  };
  for (const page of pages) {
    shift(page.node, 'StructParents');
    for (const annot of page.node.Annots()?.asArray() ?? []) {
      shift(doc.context.lookupMaybe(annot, PDFDict), 'StructParent');
    }
  }
}
