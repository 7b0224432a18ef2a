import { expect, test } from 'vitest';
import { buildPreview } from './ingest.service.js';

test('the feed preview joins the first answers, collapses whitespace and stops at 140 characters', () => {
  const message = 'Hello,\n\n   we would like   to collect\tfeedback. '.repeat(40);
  const preview = buildPreview({ name: ' Ada ', terms: true, seats: 25, skip: null, message });
  expect(preview).toHaveLength(140);
  expect(preview.endsWith('…')).toBe(true);
  expect(preview.startsWith('Ada · 25 · Hello, we would like to collect feedback. Hello, we')).toBe(
    true,
  );
  expect(preview).not.toMatch(/\s{2}|[\n\t]/);
});

test('a short preview is kept whole, trimmed, arrays joined with commas', () => {
  expect(buildPreview({ topics: ['a', 'b'], note: '  short\n' })).toBe('a, b · short');
  expect(buildPreview({ blank: '', flag: false })).toBe('');
});
