import { PassThrough } from 'node:stream';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConfigError } from '@havn/shared';
import { loadConfig } from '../../config.js';
import { parseSmtpUrl } from '../../smtp-config.js';
import {
  client,
  sampleDefinition,
  seedForm,
  startForms,
  type RunningForms,
} from '../../test-support/forms-server.js';
import { waitFor } from '../../test-support/receivers.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../../test-support/smtp-sink.js';

// docs/forms.md#email-notices, end to end: the forms server sends to a real SMTP server on
// loopback, and the tests read the messages as they arrived on the wire.

const site = 'http://site.test';
const formPath = '/api/orgs/acme/forms/contact';
const publicBase = 'https://forms.example.test';
const password = 'smtp-pa55word-never-logged';

interface Delivery {
  kind: string;
  target: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
}

async function submit(s: RunningForms, body: Record<string, unknown>): Promise<string> {
  const r = await client(s.url, null)<{ id: string }>('POST', `${formPath}/submissions`, body, {
    origin: site,
  });
  expect(r.status).toBe(200);
  return r.body.id;
}

async function deliveriesOf(s: RunningForms, id: string): Promise<Delivery[]> {
  const r = await client(s.url)<{ deliveries: Delivery[] }>('GET', `${formPath}/submissions/${id}`);
  return r.body.deliveries;
}

function mailsOf(sink: SmtpSink, id: string): ReceivedMail[] {
  return sink.received.filter((m) => m.raw.includes(id));
}

describe('email notices through a real SMTP server', () => {
  let sink: SmtpSink;
  let s: RunningForms;
  const log = new PassThrough();
  let logText = '';
  log.on('data', (c: Buffer) => (logText += c.toString()));

  beforeAll(async () => {
    sink = await startSmtpSink({ user: 'havn', password });
    const smtp = parseSmtpUrl(`smtp://havn:${password}@127.0.0.1:${String(sink.port)}`);
    if (typeof smtp === 'string') throw new Error(smtp);
    s = await startForms({
      config: {
        smtp: { ...smtp, from: 'Havn forms <forms@example.test>' },
        publicBaseUrl: publicBase,
      },
      deps: { retrySchedule: [400, 400, 400] },
      logTo: log,
    });
    await seedForm(s.url);
    const set = await client(s.url)('PATCH', formPath, {
      notify: ['ops@example.test', 'sales@example.test'],
    });
    expect(set.status).toBe(200);
  });
  afterAll(async () => {
    await s.close();
    await sink.close();
  });

  test('each recipient gets one mail: From, To, Subject, text and HTML with the answers and the link', async () => {
    const id = await submit(s, {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      message: 'Line one\nLine two',
      topics: ['a', 'b'],
      submitFields: { source: 'website', _gotcha: '' },
    });
    const mails = await waitFor(() =>
      mailsOf(sink, id).length >= 2 ? mailsOf(sink, id) : undefined,
    );
    expect(mails.map((m) => m.envelope.to).sort()).toEqual([
      ['ops@example.test'],
      ['sales@example.test'],
    ]);
    for (const m of mails) {
      expect(m.user).toBe('havn');
      expect(m.envelope.from).toBe('forms@example.test');
      expect(m.raw).toMatch(/^Content-Type: multipart\/alternative/im);
      const parsed = await simpleParser(m.raw);
      expect(parsed.from?.value[0]).toMatchObject({
        name: 'Havn forms',
        address: 'forms@example.test',
      });
      expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : '').toBe(m.envelope.to[0]);
      expect(parsed.subject).toBe('New submission: Contact');
      expect(parsed.replyTo?.text).toBe('ada@example.com');
      const link = `${publicBase}/#/submissions/contact/${id}`;
      // Labels from the definition, answers under them, choices by their option labels.
      expect(parsed.text).toContain('Your name:\n  Ada Lovelace');
      expect(parsed.text).toContain('Message:\n  Line one\n  Line two');
      expect(parsed.text).toContain('Topics:\n  A, B');
      expect(parsed.text).toContain(link);
      expect(parsed.html).toContain('>Your name</th>');
      expect(parsed.html).toContain(`href="${link}"`);
    }
    const ds = await waitFor(async () => {
      const d = await deliveriesOf(s, id);
      return d.filter((x) => x.kind === 'email').every((x) => x.status === 'delivered')
        ? d
        : undefined;
    });
    expect(
      ds
        .filter((d) => d.kind === 'email')
        .map((d) => d.target)
        .sort(),
    ).toEqual(['ops@example.test', 'sales@example.test']);
  });

  test('an answer with CRLF or markup adds no header and no markup', async () => {
    const id = await submit(s, {
      name: 'Eve\r\nBcc: victim@evil.test\r\nSubject: pwned',
      email: 'eve@example.com\r\nBcc: victim2@evil.test',
      message: '<script>alert(1)</script><img src=x onerror=alert(2)>',
      submitFields: { _gotcha: '' },
    });
    const [mail] = await waitFor(() => {
      const found = mailsOf(sink, id).filter((m) => m.envelope.to[0] === 'ops@example.test');
      return found.length > 0 ? found : undefined;
    });
    const parsed = await simpleParser(mail!.raw);
    expect(mail!.envelope.to).toEqual(['ops@example.test']);
    expect(parsed.bcc).toBeUndefined();
    expect(parsed.headers.get('bcc')).toBeUndefined();
    expect(parsed.subject).toBe('New submission: Contact');
    // Not a plain address, so not a Reply-To.
    expect(parsed.replyTo).toBeUndefined();
    const head = mail!.raw.slice(0, mail!.raw.search(/\r?\n\r?\n/));
    expect(head).not.toMatch(/evil\.test|pwned/);
    expect(parsed.html).not.toMatch(/<script|<img/i);
    expect(parsed.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(parsed.text).toContain('<script>alert(1)</script>'); // plain text shows it as typed
  });

  test("choices read as their options' labels, from the definition version the answers were sent against", async () => {
    const survey = '/api/orgs/acme/forms/survey';
    const size = (label: string) => ({
      logicalName: 'size',
      type: 'choice',
      label: 'Company size',
      options: [
        { value: 'small', label: '1 to 10' },
        { value: 'mid', label },
      ],
    });
    const definition = (label: string) => ({
      intro: { title: 'Survey' },
      questions: [
        { logicalName: 'name', type: 'text', label: 'Your name' },
        size(label),
        {
          logicalName: 'channels',
          type: 'choice',
          multiple: true,
          label: 'How can we reach you?',
          options: [
            { value: 'email', label: 'By email' },
            { value: 'phone', label: 'By phone' },
          ],
        },
      ],
    });
    const put = await client(s.url)('PUT', survey, {
      name: 'Survey',
      allowedOrigins: [site],
      webhooks: [],
      notify: ['ops@example.test'],
      definition: definition('11 to 50'),
    });
    expect(put.body).toMatchObject({ id: 'survey', definitionVersion: 1 });
    const send = async () => {
      const r = await client(s.url, null)<{ id: string }>(
        'POST',
        `${survey}/submissions`,
        { name: 'Grace', size: 'mid', channels: ['phone', 'email'], submitFields: { _gotcha: '' } },
        { origin: site },
      );
      expect(r.status).toBe(200);
      return r.body.id;
    };
    const first = await send();
    // A later version renames the option: the first submission's notice keeps its own label.
    const v2 = await client(s.url)('PUT', `${survey}/definition`, definition('11 to 50 people'));
    expect(v2.status).toBe(200);
    const second = await send();
    const textOf = async (id: string) => {
      const [mail] = await waitFor(() => {
        const found = mailsOf(sink, id);
        return found.length > 0 ? found : undefined;
      });
      return simpleParser(mail!.raw);
    };
    const one = await textOf(first);
    expect(one.text).toContain('Company size:\n  11 to 50\n');
    expect(one.text).toContain('How can we reach you?:\n  By phone, By email\n');
    expect(one.html).toContain('>11 to 50</td>');
    expect(one.html).toContain('>By phone, By email</td>');
    // No raw value in place of a label.
    expect(one.text).not.toMatch(/\bmid\b|\bphone, email\b/);
    const two = await textOf(second);
    expect(two.text).toContain('Company size:\n  11 to 50 people\n');
  });

  test('spam never mails', async () => {
    const spam = await submit(s, { name: 'Bot', submitFields: { _gotcha: 'filled' } });
    const real = await submit(s, { name: 'After the bot', submitFields: { _gotcha: '' } });
    await waitFor(() => (mailsOf(sink, real).length >= 2 ? true : undefined));
    expect(mailsOf(sink, spam)).toEqual([]);
    expect(sink.received.some((m) => m.raw.includes('Bot'))).toBe(false);
    expect(await deliveriesOf(s, spam)).toEqual([]);
  });

  test('a 451 is retried on the schedule, logged with its reply code, then delivered', async () => {
    await client(s.url)('PATCH', formPath, { notify: ['busy@example.test'] });
    sink.rcptAnswers.set('busy@example.test', [451]);
    const id = await submit(s, { name: 'Retry me', submitFields: { _gotcha: '' } });
    const [mail] = await waitFor(() => {
      const m = mailsOf(sink, id);
      return m.length > 0 ? m : undefined;
    });
    expect(mail!.envelope.to).toEqual(['busy@example.test']);
    const tries = sink.rcptAttempts.filter((a) => a.address === 'busy@example.test');
    expect(tries.map((t) => t.code)).toEqual([451, 250]);
    // The first retry step is 400 ms (lengthened by jitter, never shortened).
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(390);
    const [d] = await waitFor(async () => {
      const ds = (await deliveriesOf(s, id)).filter((x) => x.status === 'delivered');
      return ds.length > 0 ? ds : undefined;
    });
    expect(d).toMatchObject({ kind: 'email', target: 'busy@example.test', attempts: 2 });
    expect(d!.lastStatus).toBe(250);
    const failed = logText
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'delivery attempt failed' && l.kind === 'email');
    expect(failed).toMatchObject({ status: 451, next: 'pending' });
    expect(String(failed?.error)).toContain('451');
  });

  test('a final 550 for a recipient fails at once; the password is in no log line', async () => {
    await client(s.url)('PATCH', formPath, { notify: ['gone@example.test'] });
    sink.rcptAnswers.set('gone@example.test', [550]);
    const id = await submit(s, { name: 'Nobody home', submitFields: { _gotcha: '' } });
    const [d] = await waitFor(async () => {
      const ds = (await deliveriesOf(s, id)).filter((x) => x.status === 'failed');
      return ds.length > 0 ? ds : undefined;
    });
    expect(d).toMatchObject({ kind: 'email', attempts: 1, lastStatus: 550 });
    expect(logText).toContain('delivery refused for good; not retried');
    expect(logText).not.toContain(password);
  });
});

describe('notify on the form', () => {
  let s: RunningForms;
  beforeAll(async () => {
    s = await startForms(); // no SMTP_URL: notices are off
    await seedForm(s.url);
  });
  afterAll(async () => {
    await s.close();
  });

  test('PUT and PATCH set it, GET returns it, a PUT without it clears it', async () => {
    const api = client(s.url);
    const put = await api('PUT', formPath, {
      name: 'Contact',
      allowedOrigins: [site],
      notify: ['a@example.test'],
      definition: sampleDefinition,
    });
    expect(put.status).toBe(200);
    expect(put.body.notify).toEqual(['a@example.test']);
    expect((await api('PATCH', formPath, { name: 'Renamed' })).body.notify).toEqual([
      'a@example.test',
    ]);
    await api('PATCH', formPath, { notify: ['b@example.test', 'c@example.test'] });
    const got = await api<{ form: { notify: string[] } }>('GET', formPath);
    expect(got.body.form.notify).toEqual(['b@example.test', 'c@example.test']);
    await api('PUT', formPath, { name: 'Contact', allowedOrigins: [site] });
    expect((await api<{ form: { notify: string[] } }>('GET', formPath)).body.form.notify).toEqual(
      [],
    );
  });

  test('bad lists answer 400 naming the field and change nothing', async () => {
    const api = client(s.url);
    await api('PATCH', formPath, { notify: ['keep@example.test'] });
    const cases: [unknown, string][] = [
      ['ops@example.test', 'notify must be an array of email addresses'],
      [['ok@example.test', 'not an address'], 'notify/1 must be an email address'],
      [['x@example.test\r\nBcc: y@evil.test'], 'notify/0 must be an email address'],
      [[`${'a'.repeat(250)}@example.test`], 'notify/0 must be an email address'],
      [['Name <n@example.test>'], 'notify/0 must be an email address'],
      [Array.from({ length: 21 }, (_, i) => `p${String(i)}@example.test`), 'at most 20'],
      [['d@example.test', 'D@example.test'], 'notify/1: D@example.test is listed twice'],
    ];
    for (const [notify, message] of cases) {
      const r = await api<{ error: string }>('PATCH', formPath, { notify });
      expect(r.status, JSON.stringify(notify)).toBe(400);
      expect(r.body.error).toContain(message);
    }
    const got = await api<{ form: { notify: string[] } }>('GET', formPath);
    expect(got.body.form.notify).toEqual(['keep@example.test']);
  });

  test('without SMTP_URL a form with notify still takes submissions; its notices are dropped, saying why', async () => {
    await client(s.url)('PATCH', formPath, { notify: ['ops@example.test'] });
    const id = await submit(s, { name: 'Ada', submitFields: { _gotcha: '' } });
    const [d] = await waitFor(async () => {
      const ds = (await deliveriesOf(s, id)).filter((x) => x.status === 'dropped');
      return ds.length > 0 ? ds : undefined;
    });
    expect(d).toMatchObject({ kind: 'email', target: 'ops@example.test' });
    expect(d!.lastError).toContain('SMTP_URL');
  });
});

describe('SMTP configuration', () => {
  const problems = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
      return [];
    } catch (err) {
      return err instanceof ConfigError ? [...err.problems] : [String(err)];
    }
  };

  test('a bad SMTP_URL or SMTP_FROM is named, with every other problem, and the password is not shown', () => {
    const found = problems({
      SMTP_URL: 'http://user:hunter2@mail.example.test',
      SMTP_FROM: 'forms@example.test\r\nBcc: x@evil.test',
      PORT: '99999',
    });
    expect(found).toHaveLength(3);
    expect(found.join('\n')).not.toContain('hunter2');
    expect(found.find((p) => p.startsWith('SMTP_URL'))).toContain('must be smtp://');
    expect(found.find((p) => p.startsWith('SMTP_FROM'))).toContain('must be an address');
    expect(found.find((p) => p.startsWith('PORT'))).toBeDefined();
    expect(problems({ SMTP_URL: 'smtp://mail.example.test:25/path' })).toEqual([
      expect.stringContaining('nothing may follow the host and port'),
      expect.stringContaining('SMTP_FROM must be set when SMTP_URL is'),
    ]);
    expect(problems({ SMTP_FROM: 'forms@example.test' })).toEqual([
      'SMTP_FROM is set but SMTP_URL is not; set both or neither',
    ]);
    expect(problems({ SMTP_URL: 'not a url', SMTP_FROM: 'a@b.test' })[0]).toMatch(
      /^SMTP_URL must be/,
    );
  });

  test('good values: smtps defaults to 465, smtp to 587, credentials percent-decoded', () => {
    const c = loadConfig({
      SMTP_URL: 'smtps://u%40x:p%2Fw@mail.example.test',
      SMTP_FROM: 'a@b.test',
    });
    expect(c.smtp).toMatchObject({ host: 'mail.example.test', port: 465, secure: true });
    expect(c.smtp).toMatchObject({ user: 'u@x', password: 'p/w', from: 'a@b.test' });
    expect(loadConfig({ SMTP_URL: 'smtp://relay', SMTP_FROM: 'a@b.test' }).smtp?.port).toBe(587);
    expect(loadConfig({}).smtp).toBeUndefined();
  });
});
