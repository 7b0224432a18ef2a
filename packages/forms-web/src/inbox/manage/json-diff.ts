// What changed between two definition versions, as a list a person can read: questions are matched
// by their logicalName (not their position), so moving a question reads as a move, not as every
// question after it changing.

export interface Change {
  path: string;
  kind: 'added' | 'removed' | 'changed' | 'moved';
  before?: unknown;
  after?: unknown;
}

const obj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function named(list: unknown[]): Map<string, { item: unknown; index: number }> | null {
  const out = new Map<string, { item: unknown; index: number }>();
  for (const [index, item] of list.entries()) {
    if (!obj(item) || typeof item.logicalName !== 'string' || out.has(item.logicalName)) {
      return null;
    }
    out.set(item.logicalName, { item, index });
  }
  return out;
}

export function diffJson(before: unknown, after: unknown, path = ''): Change[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  if (Array.isArray(before) && Array.isArray(after)) {
    const a = named(before);
    const b = named(after);
    if (a && b) {
      const out: Change[] = [];
      for (const [name, { item, index }] of a) {
        const there = b.get(name);
        if (!there) out.push({ path: `${path}[${name}]`, kind: 'removed', before: item });
        else {
          if (there.index !== index) {
            out.push({
              path: `${path}[${name}]`,
              kind: 'moved',
              before: index + 1,
              after: there.index + 1,
            });
          }
          out.push(...diffJson(item, there.item, `${path}[${name}]`));
        }
      }
      for (const [name, { item }] of b) {
        if (!a.has(name)) out.push({ path: `${path}[${name}]`, kind: 'added', after: item });
      }
      return out;
    }
    const out: Change[] = [];
    for (let n = 0; n < Math.max(before.length, after.length); n++) {
      const p = `${path}[${String(n + 1)}]`;
      if (n >= after.length) out.push({ path: p, kind: 'removed', before: before[n] });
      else if (n >= before.length) out.push({ path: p, kind: 'added', after: after[n] });
      else out.push(...diffJson(before[n], after[n], p));
    }
    return out;
  }
  if (obj(before) && obj(after)) {
    const out: Change[] = [];
    for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const p = path ? `${path}.${k}` : k;
      if (!(k in after)) out.push({ path: p, kind: 'removed', before: before[k] });
      else if (!(k in before)) out.push({ path: p, kind: 'added', after: after[k] });
      else out.push(...diffJson(before[k], after[k], p));
    }
    return out;
  }
  return [{ path: path || '(whole definition)', kind: 'changed', before, after }];
}
