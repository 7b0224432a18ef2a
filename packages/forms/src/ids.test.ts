import { expect, test } from 'vitest';
import { createIdGenerator } from './ids.js';

const format = /^sub_[0-9a-hjkmnp-tv-z]{26}$/;

test('ids carry their millisecond in the first 10 digits and sort in the order they were made', () => {
  let now = Date.UTC(2026, 10, 21, 12, 0, 0, 0);
  const newId = createIdGenerator(() => now);
  const ids: string[] = [];
  for (let ms = 0; ms < 5; ms++) {
    for (let i = 0; i < 1000; i++) ids.push(newId('sub'));
    now += 1;
  }
  for (const id of ids) expect(id).toMatch(format);
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort()).toEqual(ids);
  // 2026-11-21T12:00:00.000Z is 1795262400000 ms: its base-32 digits, most significant first.
  expect(ids[0]?.slice(4, 14)).toBe('01m7yzmhg0');
});

test('a clock that goes back keeps the ids increasing', () => {
  const times = [2_000, 1_000, 1_000, 2_000, 3_000];
  const newId = createIdGenerator(() => times.shift() ?? 3_000);
  const ids = Array.from({ length: 5 }, () => newId('msg'));
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(ids).size).toBe(5);
});
