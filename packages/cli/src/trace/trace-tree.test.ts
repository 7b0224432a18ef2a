import { describe, expect, it } from 'vitest';
import { buildTraceTree, flatten } from './trace-tree.js';

const span = (id: string, parent: string, at: number, ms: number, role = 'api') => ({
  itemType: 'request',
  id,
  operation_ParentId: parent,
  timestamp: new Date(Date.UTC(2026, 10, 21, 10) + at).toISOString(),
  duration: ms,
  success: true,
  cloud_RoleName: role,
  cloud_RoleInstance: `${role}-1`,
});

describe('buildTraceTree', () => {
  it('cuts a cycle of parent ids instead of looping, and keeps every item', () => {
    const tree = buildTraceTree('op', [
      span('root', 'op', 0, 100),
      span('a', 'b', 10, 20),
      span('b', 'a', 20, 20),
      span('c', 'a', 25, 5),
    ]);
    const shown = flatten(tree.roots).map((r) => [String(r.node.row.id), r.depth]);
    expect(shown).toHaveLength(4);
    expect(shown[0]).toEqual(['root', 0]);
    // One of the cycle is lifted to the top and marked; the rest hangs under it.
    const top = tree.roots.filter((n) => n.row.id !== 'root');
    expect(top).toHaveLength(1);
    expect(top[0]?.orphan).toBe(true);
  });

  it('moves a span from another machine into its caller, centred, with its subtree', () => {
    const tree = buildTraceTree('op', [
      span('root', 'op', 0, 100, 'web'),
      span('late-clock', 'root', -300, 40, 'db'),
      { ...span('child', 'late-clock', -290, 10, 'db'), itemType: 'dependency' },
    ]);
    const [root] = tree.roots;
    const moved = root?.children[0];
    expect(moved?.moved).toBe(true);
    expect(moved?.skew).toBe(330);
    expect(moved?.children[0]?.skew).toBe(330);
    expect(moved?.children[0]?.moved).toBe(false);
    expect(tree.start).toBe(Date.UTC(2026, 10, 21, 10));
  });

  it('leaves a child on the same machine where it is: work after the response is real', () => {
    const tree = buildTraceTree('op', [span('root', 'op', 0, 100), span('after', 'root', 90, 50)]);
    expect(tree.roots[0]?.children[0]?.skew).toBe(0);
    expect(tree.end - tree.start).toBe(140);
  });
});
