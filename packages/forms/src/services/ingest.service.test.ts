import { expect, test } from 'vitest';
import {
  WEBHOOK_PAYLOAD_FROM_SUBMISSION,
  webhookPayload,
  type WebhookSource,
} from '../store/webhook-payload.js';
import { buildPreview, buildSubmissionWrite, parseIngestBody } from './ingest.service.js';

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

test('the feed preview names choices by their labels and files by name and size', () => {
  const labels = { size: { mid: '11 to 50' }, topics: { a: 'Apples' } };
  const cv = { name: 'cv.pdf', size: 3_000_000, type: 'application/pdf', sha256: 'ab', id: 'f1' };
  expect(buildPreview({ size: 'mid', topics: ['a', 'zz'], cv: [cv] }, labels)).toBe(
    '11 to 50 · Apples, zz · cv.pdf (2.9 MB)',
  );
});

test('the webhook body built from the stored row is byte for byte JSON.stringify of the record', () => {
  const parsed = {
    name: 'Zoë "Z" \u2028 O\'Neil',
    seats: 1e21,
    ratio: 0.1,
    tags: ['a', '</script>'],
    none: null,
    ok: true,
    submitFields: { source: 'web', n: 2 },
  };
  const raw = Buffer.from(JSON.stringify(parsed));
  const { id, write } = buildSubmissionWrite(
    {
      org: 'acme',
      form: {
        id: 'contact',
        definitionVersion: 3,
        webhooks: [{ url: 'https://h.test/', secret: 's' }],
        arrayAnswers: ['tags'],
        notify: [],
        logic: null,
        uploads: {},
        choiceLabels: {},
      },
      raw,
      origin: 'https://site.test',
      referer: null,
      userAgent: 'ua',
      ip: '127.0.0.1',
      now: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
      pushSubscriptions: [],
    },
    parseIngestBody(raw),
    (prefix) => `${prefix}_1`,
  );
  const { body: _body, ...stored } = write.submission;
  const expected = JSON.stringify({
    type: 'submission.created',
    timestamp: '2026-01-02T03:04:05.006Z',
    data: {
      id,
      org: 'acme',
      form: 'contact',
      receivedAt: '2026-01-02T03:04:05.006Z',
      read: false,
      spam: false,
      preview: write.submission.preview,
      answers: Object.fromEntries(Object.entries(parsed).filter(([k]) => k !== 'submitFields')),
      submitFields: parsed.submitFields,
      origin: 'https://site.test',
      referer: null,
      userAgent: 'ua',
      ip: '127.0.0.1',
      definitionVersion: 3,
    },
  });
  expect(webhookPayload(stored as WebhookSource)).toBe(expected);
  expect(write.deliveries.map((d) => d.payload)).toEqual([WEBHOOK_PAYLOAD_FROM_SUBMISSION]);
});
