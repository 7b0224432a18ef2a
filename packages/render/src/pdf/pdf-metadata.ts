import { PDFName, type PDFDocument } from 'pdf-lib';

// Title, author, subject, keywords and creator written twice, as readers expect them: into the
// document information dictionary (what `pdfinfo` and most viewers show) and into an XMP packet
// (what PDF 2.0, PDF/A checkers and search indexers read). pdf-lib edits the structure; it has no
// XMP writer, so the packet is built here (docs/render.md#pdf-options).

export interface PdfMetadata {
  title?: string | undefined;
  author?: string | undefined;
  subject?: string | undefined;
  keywords?: readonly string[] | undefined;
  creator?: string | undefined;
}

const PRODUCER = 'Havn render (Chromium, pdf-lib)';

/**
 * Sets the info dictionary and the catalog's XMP stream of an open document; fields left out keep
 * the document's values (Chromium's title comes from <title>).
 */
export function writeMetadata(doc: PDFDocument, metadata: PdfMetadata): void {
  // showInWindowTitleBar: viewers then show the title instead of the file name (PDF/UA asks it).
  if (metadata.title !== undefined) doc.setTitle(metadata.title, { showInWindowTitleBar: true });
  if (metadata.author !== undefined) doc.setAuthor(metadata.author);
  if (metadata.subject !== undefined) doc.setSubject(metadata.subject);
  if (metadata.keywords !== undefined) doc.setKeywords([...metadata.keywords]);
  if (metadata.creator !== undefined) doc.setCreator(metadata.creator);
  doc.setProducer(PRODUCER);
  const xmp = xmpPacket({
    title: doc.getTitle(),
    author: doc.getAuthor(),
    subject: doc.getSubject(),
    keywords: metadata.keywords,
    creator: doc.getCreator(),
  });
  const stream = doc.context.stream(new TextEncoder().encode(xmp), {
    Type: 'Metadata',
    Subtype: 'XML',
  });
  doc.catalog.set(PDFName.of('Metadata'), doc.context.register(stream));
}

function xml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

function xmpPacket(m: PdfMetadata): string {
  const alt = (tag: string, value: string | undefined) =>
    value === undefined
      ? ''
      : `<${tag}><rdf:Alt><rdf:li xml:lang="x-default">${xml(value)}</rdf:li></rdf:Alt></${tag}>`;
  const list = (tag: string, kind: string, values: readonly string[] | undefined) =>
    values === undefined || values.length === 0
      ? ''
      : `<${tag}><rdf:${kind}>${values.map((v) => `<rdf:li>${xml(v)}</rdf:li>`).join('')}</rdf:${kind}></${tag}>`;
  const simple = (tag: string, value: string | undefined) =>
    value === undefined ? '' : `<${tag}>${xml(value)}</${tag}>`;
  return [
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"',
    ' xmlns:pdf="http://ns.adobe.com/pdf/1.3/" xmlns:xmp="http://ns.adobe.com/xap/1.0/">',
    '<dc:format>application/pdf</dc:format>',
    alt('dc:title', m.title),
    list('dc:creator', 'Seq', m.author === undefined ? undefined : [m.author]),
    alt('dc:description', m.subject),
    list('dc:subject', 'Bag', m.keywords),
    simple('pdf:Keywords', m.keywords?.join(', ')),
    simple('pdf:Producer', PRODUCER),
    simple('xmp:CreatorTool', m.creator),
    '</rdf:Description></rdf:RDF></x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('');
}
