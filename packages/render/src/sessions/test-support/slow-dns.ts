import { Resolver } from 'node:dns/promises';
import { createSocket as createUdpSocket } from 'node:dgram';
import type { Resolver as HostResolver } from '@havn/shared';

// A DNS server on loopback that answers every A question for a `.test` name, late: what a name
// whose authoritative server is slow looks like to the service. Hand-written because the wire
// format of one question and one A answer is a few bytes (RFC 1035 §4.1) and no DNS library is a
// dependency of this repository. `resolve` asks it through Node's own resolver (c-ares), the way
// the service asks the system's.

export interface SlowDns {
  /** A resolver for checkHost that asks this server. */
  resolve: HostResolver;
  /** The names asked so far, in order. */
  asked: string[];
  close(): Promise<void>;
}

/** The question's name, read label by label from offset 12. */
function questionName(query: Buffer): { name: string; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (at < query.length && query[at] !== 0) {
    const length = query[at] ?? 0;
    labels.push(query.subarray(at + 1, at + 1 + length).toString('latin1'));
    at += 1 + length;
  }
  // The terminating zero, then QTYPE and QCLASS.
  return { name: labels.join('.'), end: at + 5 };
}

function answer(query: Buffer, address: string): Buffer {
  const { end } = questionName(query);
  const header = Buffer.from(query.subarray(0, 12));
  header.writeUInt16BE(0x8180, 2); // a response, recursion desired and available, no error
  header.writeUInt16BE(1, 4); // one question
  header.writeUInt16BE(1, 6); // one answer
  header.writeUInt32BE(0, 8); // no authority or additional records
  const record = Buffer.alloc(16);
  record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
  record.writeUInt16BE(1, 2); // type A
  record.writeUInt16BE(1, 4); // class IN
  record.writeUInt32BE(60, 6); // ttl
  record.writeUInt16BE(4, 10);
  address.split('.').forEach((octet, i) => record.writeUInt8(Number(octet), 12 + i));
  return Buffer.concat([header, query.subarray(12, end), record]);
}

/** Answers every question `delayMs` late with `address` (a public one: the policy lets it by). */
export async function startSlowDns(delayMs: number, address = '93.184.215.14'): Promise<SlowDns> {
  const server = createUdpSocket('udp4');
  const asked: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  server.on('message', (query, peer) => {
    asked.push(questionName(query).name);
    const timer = setTimeout(() => {
      timers.delete(timer);
      server.send(answer(query, address), peer.port, peer.address);
    }, delayMs);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const resolver = new Resolver({ timeout: delayMs * 2, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  return {
    resolve: async (host) =>
      (await resolver.resolve4(host)).map((found) => ({ address: found, family: 4 })),
    asked,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      resolver.cancel();
      await new Promise<void>((resolve) => server.close(resolve));
    },
  };
}
