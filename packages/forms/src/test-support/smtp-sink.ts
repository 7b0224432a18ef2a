// A real SMTP server on loopback (the `smtp-server` package) that keeps every message it accepts,
// raw, with its envelope: what a mail relay of the operator's would receive from the forms server.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** MAIL FROM and RCPT TO as the client sent them. */
  envelope: { from: string; to: string[] };
  /** The message as it came over the wire (headers and body). */
  raw: string;
  /** The user the client authenticated as, if any. */
  user: string | undefined;
  at: number;
}

export interface SmtpSink {
  port: number;
  received: ReceivedMail[];
  /**
   * Answers for RCPT TO of an address, in order: a number is a refusal with that reply code, 0
   * accepts; the list is used up one attempt at a time, then every RCPT is accepted.
   */
  rcptAnswers: Map<string, number[]>;
  /** Every RCPT TO attempt, refused or not, with its time. */
  rcptAttempts: { address: string; at: number; code: number }[];
  close(): Promise<void>;
}

export async function startSmtpSink(
  options: { user?: string; password?: string } = {},
): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const rcptAnswers = new Map<string, number[]>();
  const rcptAttempts: SmtpSink['rcptAttempts'] = [];
  const server = new SMTPServer({
    // No TLS on loopback; plain AUTH only because the test relay is on this machine.
    disabledCommands: options.user === undefined ? ['AUTH', 'STARTTLS'] : ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: options.user === undefined,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.password) {
        callback(null, { user: auth.username });
      } else {
        callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      }
    },
    onRcptTo(address, _session, callback) {
      const answers = rcptAnswers.get(address.address);
      const code = answers?.shift() ?? 0;
      rcptAttempts.push({ address: address.address, at: Date.now(), code: code || 250 });
      if (code === 0) {
        callback();
        return;
      }
      callback(
        Object.assign(new Error(`mailbox busy, try later (${String(code)})`), {
          responseCode: code,
        }),
      );
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const from = session.envelope.mailFrom;
        received.push({
          envelope: {
            from: from === false ? '' : from.address,
            to: session.envelope.rcptTo.map((r) => r.address),
          },
          raw: Buffer.concat(chunks).toString('utf8'),
          user: typeof session.user === 'string' ? session.user : undefined,
          at: Date.now(),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    rcptAnswers,
    rcptAttempts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
