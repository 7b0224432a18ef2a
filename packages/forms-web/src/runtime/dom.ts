// A three-line element builder: the runtime has no framework (docs/forms-web.md#building-and-measuring: under 15 KB gzipped).

type Attrs = Record<string, string | number | boolean | undefined>;

/** Creates `<tag>` with attributes (false/undefined are left out) and text or element children. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Node | string | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}
