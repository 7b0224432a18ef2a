// The JavaScript that reads a page for the content endpoints (docs/render.md#content-endpoints).
// It is evaluated in an isolated world of the page (extract.ts), where the page's own scripts
// cannot reach: the DOM is shared, but every JavaScript object (document's methods,
// Node.prototype, JSON, Array) is the world's own. It is kept as plain text, not as TypeScript
// functions passed through toString(), because the service is type-checked without the DOM
// library and a transpiler may rewrite a function's body; nothing here closes over anything.
//
// Every text the answer carries is counted in UTF-8 bytes against `max` (MAX_CONTENT_BYTES);
// past it the reading stops and says `truncated: true`.

export const PAGE_LIB = String.raw`(function () {
  'use strict';
  function utf8(s) {
    var n = 0;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) { n += 4; i++; }
      else n += 3;
    }
    return n;
  }
  // s cut to at most max UTF-8 bytes, never inside a character.
  function cut(s, max) {
    var n = 0;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      var w = c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? 4 : 3;
      if (n + w > max) return s.slice(0, i);
      n += w;
      if (w === 4) i++;
    }
    return s;
  }
  function Budget(max) { this.left = max; this.truncated = false; }
  Budget.prototype.take = function (s) {
    var size = utf8(s);
    if (size <= this.left) { this.left -= size; return true; }
    this.truncated = true;
    return false;
  };
  // Rendered: has a box, not display:none, visibility:hidden, content-visibility:hidden or
  // opacity 0. display:contents has no box of its own but shows its children.
  function visible(el) {
    if (el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return true;
    var style = getComputedStyle(el);
    return style.display === 'contents' && style.visibility !== 'hidden';
  }
  function squash(s) { return s.replace(/\s+/g, ' ').trim(); }
  function textOf(el) {
    var t = squash(el instanceof HTMLElement ? el.innerText : el.textContent || '');
    if (t) return t;
    var label = el.getAttribute('aria-label') || el.getAttribute('title');
    if (label) return squash(label);
    var img = el.querySelector('img[alt]');
    return img ? squash(img.getAttribute('alt') || '') : '';
  }
  function doctype() {
    var d = document.doctype;
    if (!d) return '';
    return '<!DOCTYPE ' + d.name + (d.publicId ? ' PUBLIC "' + d.publicId + '"' : '') +
      (d.systemId ? (d.publicId ? '' : ' SYSTEM') + ' "' + d.systemId + '"' : '') + '>';
  }

  function content(o) {
    var html = doctype() + (document.documentElement ? document.documentElement.outerHTML : '');
    var kept = cut(html, o.max);
    return { html: kept, title: document.title, url: location.href, truncated: kept.length < html.length };
  }

  function links(o) {
    var base = new URL(document.baseURI);
    var seen = new Set();
    var out = [];
    var budget = new Budget(o.max);
    var nodes = document.querySelectorAll('a[href], area[href]');
    for (var i = 0; i < nodes.length; i++) {
      var el = nodes[i];
      if (!(el instanceof HTMLAnchorElement) && !(el instanceof HTMLAreaElement)) continue;
      var href = el.href;
      if (!href || /^javascript:/i.test(href) || seen.has(href)) continue;
      if (o.sameOriginOnly) {
        var origin;
        try { origin = new URL(href).origin; } catch (e) { continue; }
        if (origin === 'null' || origin !== base.origin) continue;
      }
      if (o.visibleOnly && !visible(el)) continue;
      var link = { href: href, text: textOf(el), rel: el.getAttribute('rel') || '' };
      if (!budget.take(link.href + link.text + link.rel)) break;
      seen.add(href);
      out.push(link);
    }
    return { links: out, truncated: budget.truncated, title: document.title, url: location.href };
  }

  function scrape(o) {
    var budget = new Budget(o.max);
    var results = [];
    for (var s = 0; s < o.elements.length; s++) {
      var spec = o.elements[s];
      var nodes;
      try { nodes = document.querySelectorAll(spec.selector); } catch (e) { return { invalid: s }; }
      var matches = [];
      for (var i = 0; i < nodes.length && i < spec.limit && !budget.truncated; i++) {
        var el = nodes[i];
        var attributes = {};
        var names = spec.attributes;
        if (names) {
          for (var a = 0; a < names.length; a++) {
            var v = el.getAttribute(names[a]);
            if (v !== null) attributes[names[a]] = v;
          }
        } else {
          for (var b = 0; b < el.attributes.length; b++) attributes[el.attributes[b].name] = el.attributes[b].value;
        }
        var r = el.getBoundingClientRect();
        var match = {
          text: textOf(el),
          html: el.outerHTML,
          attributes: attributes,
          box: { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height },
        };
        var sized = match.text + match.html;
        for (var k in attributes) sized += k + attributes[k];
        if (!budget.take(sized)) break;
        matches.push(match);
      }
      results.push({ selector: spec.selector, matches: matches });
    }
    return { results: results, truncated: budget.truncated, title: document.title, url: location.href };
  }

  // A copy of the page's visible body in a document of its own: no scripts, styles, hidden
  // elements or form controls, every link and image absolute. Elements are made by that document
  // (not cloned from the page), so no custom-element constructor of the page runs.
  var SKIP = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'iframe',
    'object', 'embed', 'canvas', 'svg', 'button', 'input', 'select', 'textarea', 'dialog']);
  function copy(doc, node) {
    if (node.nodeType === 3) return doc.createTextNode(node.data);
    if (node.nodeType !== 1) return null;
    var tag = node.localName;
    if (SKIP.has(tag) || !visible(node)) return null;
    var c;
    try { c = doc.createElementNS(node.namespaceURI, tag); } catch (e) { return null; }
    for (var i = 0; i < node.attributes.length; i++) {
      var attr = node.attributes[i];
      if (/^on/i.test(attr.name) || attr.name === 'style') continue;
      try { c.setAttribute(attr.name, attr.value); } catch (e) { /* a name the parser would refuse */ }
    }
    if (tag === 'a' && node.href) c.setAttribute('href', node.href);
    if (tag === 'img') {
      var src = node.currentSrc || node.src;
      if (src) c.setAttribute('src', src);
      c.removeAttribute('srcset');
    }
    for (var child = node.firstChild; child; child = child.nextSibling) {
      var cc = copy(doc, child);
      if (cc) c.appendChild(cc);
    }
    return c;
  }
  function cleanDocument() {
    var doc = document.implementation.createHTMLDocument(document.title);
    var base = doc.createElement('base');
    base.setAttribute('href', document.baseURI);
    doc.head.appendChild(base);
    // Readability reads the byline and site name from meta tags.
    var metas = document.head ? document.head.querySelectorAll('meta[name], meta[property]') : [];
    for (var i = 0; i < metas.length; i++) {
      var m = doc.createElement('meta');
      for (var j = 0; j < metas[i].attributes.length; j++) m.setAttribute(metas[i].attributes[j].name, metas[i].attributes[j].value);
      doc.head.appendChild(m);
    }
    var body = document.body ? copy(doc, document.body) : null;
    if (body) doc.documentElement.replaceChild(body, doc.body);
    return doc;
  }

  function markdown(o, Readability, TurndownService, gfm) {
    var doc = cleanDocument();
    var title = document.title;
    var byline = null;
    var mode = o.mode;
    var source = doc.body;
    if (mode === 'article') {
      var article = new Readability(doc, { keepClasses: true }).parse();
      if (article && article.content) {
        source = article.content;
        title = article.title || title;
        byline = article.byline || null;
      } else {
        // Not an article (a listing, an app): the whole visible page instead.
        mode = 'full';
        doc = cleanDocument();
        source = doc.body;
      }
    }
    var td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
    td.use(gfm.gfm);
    // "- item" and "1. item" rather than turndown's "-   item": what people and tools write.
    td.addRule('listItem', {
      filter: 'li',
      replacement: function (text, node) {
        var parent = node.parentNode;
        var prefix = '- ';
        if (parent && parent.nodeName === 'OL') {
          var start = parent.getAttribute('start');
          var index = Array.prototype.indexOf.call(parent.children, node);
          prefix = (start ? Number(start) + index : index + 1) + '. ';
        }
        var indent = ' '.repeat(prefix.length);
        text = text.replace(/^\n+/, '').replace(/\n+$/, '\n').replace(/\n/gm, '\n' + indent);
        return prefix + text + (node.nextSibling && !/\n$/.test(text) ? '\n' : '');
      },
    });
    var md = source ? td.turndown(source) : '';
    if (mode === 'article' && title && !/^#\s/.test(md)) md = '# ' + title + '\n\n' + md;
    var kept = cut(md, o.max);
    return { markdown: kept, title: title, byline: byline, mode: mode, url: location.href, truncated: kept.length < md.length };
  }

  return { content: content, links: links, scrape: scrape, markdown: markdown };
})()`;
