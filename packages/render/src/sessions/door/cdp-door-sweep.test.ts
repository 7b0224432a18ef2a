import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCanary, type Canary } from '../../test-support/fixture-server.js';
import { refusedMethod } from './cdp-allowlist.js';
import { attachToPage, rawClient, type CdpMessage } from '../test-support/cdp-client.js';
import {
  BROWSERS,
  startSessionTestApp,
  type SessionTestApp,
} from '../test-support/session-test-app.js';

// Every method of the browser's own protocol (its /json/protocol), sent through the door three
// ways: at the top level, on a flat page session, and wrapped in Target.sendMessageToTarget.
// Parameters are the required ones, filled in plainly, plus every URL or path parameter aimed at
// a canary on loopback or a folder outside the session. What is off the allow-list must be
// refused by name; nothing may reach the canary or write to the outside folder.

interface Param {
  name: string;
  type?: string;
  $ref?: string;
  optional?: boolean;
  enum?: string[];
  items?: { type?: string; $ref?: string };
}
interface Domain {
  domain: string;
  types?: ({ id: string } & Param & { properties?: Param[] })[];
  commands?: { name: string; parameters?: Param[] }[];
}

interface Sent {
  id: number;
  method: string;
  params: Record<string, unknown>;
  route: 'top' | 'flat' | 'wrapped';
}

/** A door client with a flat page session and a wrapped (non-flat) one to send through. */
async function openDoor(url: string, replies: Map<number, CdpMessage>) {
  const client = await rawClient(url);
  const state = { closed: false };
  client.ws.on('close', () => {
    state.closed = true;
  });
  const flat = await attachToPage(client);
  const targets = await client.command('Target.getTargets');
  const page = (targets.result?.['targetInfos'] as { targetId: string; type: string }[]).find(
    (info) => info.type === 'page',
  )!;
  const attached = await client.command('Target.attachToTarget', {
    targetId: page.targetId,
    flatten: false,
  });
  const wrapped = String(attached.result?.['sessionId']);
  client.ws.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString()) as CdpMessage;
    if (message.id !== undefined) replies.set(message.id, message);
  });
  return {
    client,
    get closed() {
      return state.closed;
    },
    send({ id, method, params, route }: Sent): void {
      const inner = { id, method, params };
      const message =
        route === 'top'
          ? inner
          : route === 'flat'
            ? { ...inner, sessionId: flat }
            : {
                id,
                method: 'Target.sendMessageToTarget',
                params: { sessionId: wrapped, message: JSON.stringify(inner) },
              };
      client.ws.send(JSON.stringify(message));
    },
    /** Until every one of `entries` has its reply, the socket closed, or `ms` passed. */
    async settle(entries: readonly Sent[], ms: number): Promise<void> {
      const until = Date.now() + ms;
      while (!state.closed && Date.now() < until && entries.some((e) => !replies.has(e.id))) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

/** Ends the session under test, so the sweep cannot go on after it; tested on its own. */
const NOT_SENT = new Set(['Browser.close']);

describe.each(BROWSERS)('a sweep of the whole protocol, against %s', (chromiumPath) => {
  let t: SessionTestApp;
  let canary: Canary;
  let outside: string;
  let cdpUrl: string;
  let id: string;

  beforeAll(async () => {
    t = await startSessionTestApp({ chromiumPath, maxSessions: 12 });
    canary = await startCanary();
    outside = await mkdtemp(join(tmpdir(), 'havn-sweep-outside-'));
    ({ cdpUrl, id } = await t.openSession());
  });
  const newSession = async (): Promise<string> => (await t.openSession()).cdpUrl;
  afterAll(async () => {
    await t.close();
    await canary.close();
    await rm(outside, { recursive: true, force: true });
  });

  it('refuses all that is off the allow-list; the rest reaches no host and writes nothing outside', async () => {
    // The protocol as this browser speaks it, read from its own socket (the test's back door).
    const endpoint = new URL(t.manager.get(id)!.browserWsEndpoint);
    const protocol = (await (await fetch(`http://${endpoint.host}/json/protocol`)).json()) as {
      domains: Domain[];
    };
    const types = new Map<string, Param & { properties?: Param[] }>();
    for (const d of protocol.domains) {
      for (const type of d.types ?? []) types.set(`${d.domain}.${type.id}`, type);
    }
    const hostile = `http://127.0.0.1:${canary.port}/sweep`;
    const value = (domain: string, p: Param, depth = 0): unknown => {
      if (/url/i.test(p.name)) return hostile;
      if (/path|file|directory/i.test(p.name)) {
        return p.type === 'array' ? [join(outside, 'x')] : join(outside, 'x');
      }
      if (p.$ref) {
        const ref = p.$ref.includes('.') ? p.$ref : `${domain}.${p.$ref}`;
        const type = types.get(ref);
        if (!type || depth > 3) return {};
        return value(ref.split('.')[0]!, { ...type, name: p.name }, depth + 1);
      }
      if (p.enum) return p.enum[0];
      switch (p.type) {
        case 'string':
          return 'x';
        case 'integer':
        case 'number':
          return 1;
        case 'boolean':
          return true;
        case 'array':
          return [];
        default: {
          const props = (p as { properties?: Param[] }).properties ?? [];
          return Object.fromEntries(
            props.filter((q) => !q.optional).map((q) => [q.name, value(domain, q, depth + 1)]),
          );
        }
      }
    };

    const cwdBefore = await readdir(process.cwd());
    const sent: Sent[] = [];
    let next = 100_000;
    for (const d of protocol.domains) {
      for (const c of d.commands ?? []) {
        const method = `${d.domain}.${c.name}`;
        if (NOT_SENT.has(method)) continue;
        const params = Object.fromEntries(
          (c.parameters ?? [])
            .filter((p) => !p.optional || /url|path|file|directory/i.test(p.name))
            .map((p) => [p.name, value(d.domain, p)]),
        );
        for (const route of ['top', 'flat', 'wrapped'] as const) {
          sent.push({ id: next++, method, params, route });
        }
      }
    }

    // Some methods crash Chromium on odd arguments, taking the session with them. The sweep goes
    // a domain at a time; a domain during which the browser died is replayed one command at a
    // time in fresh sessions, so the one that crashed it is known and the rest still get sent.
    const replies = new Map<number, CdpMessage>();
    const crashed: string[] = [];
    let door = await openDoor(cdpUrl, replies);
    const domains = new Map<string, Sent[]>();
    for (const entry of sent) {
      const domain = entry.method.split('.')[0]!;
      domains.set(domain, [...(domains.get(domain) ?? []), entry]);
    }
    for (const chunk of domains.values()) {
      for (const entry of chunk) door.send(entry);
      await door.settle(chunk, 1500);
      if (!door.closed) continue;
      for (const entry of chunk.filter((e) => !replies.has(e.id))) {
        if (door.closed) door = await openDoor(await newSession(), replies);
        door.send(entry);
        await door.settle([entry], 1500);
        if (door.closed && !replies.has(entry.id)) crashed.push(entry.method);
      }
      if (door.closed) door = await openDoor(await newSession(), replies);
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
    door.client.close();

    const offList = sent.filter((s) => refusedMethod(s.method));
    expect(offList.length).toBeGreaterThan(100);
    expect(sent.length - offList.length).toBeGreaterThan(600);
    for (const s of offList) {
      expect(
        replies.get(s.id)?.error?.message,
        `${s.method} (crashed: ${crashed.join(', ')})`,
      ).toMatch(new RegExp(`^havn: ${s.method.replace('.', '\\.')} is not`));
    }
    for (const s of sent.filter((x) => !refusedMethod(x.method))) {
      expect(replies.get(s.id)?.error?.message ?? '', s.method).not.toMatch(
        /is not allowed through/,
      );
    }
    // The methods an attacker reached for are among the refused.
    for (const method of [
      'Tethering.bind',
      'Target.setRemoteLocations',
      'Target.openDevTools',
      'Target.exposeDevToolsProtocol',
      'Extensions.loadUnpacked',
      'Browser.getBrowserCommandLine',
    ]) {
      expect(
        offList.map((s) => s.method),
        method,
      ).toContain(method);
    }
    expect(canary.connections()).toBe(0);
    expect(await readdir(outside)).toEqual([]);
    // Relative paths would have landed in the service's working directory.
    expect(await readdir(process.cwd())).toEqual(cwdBefore);
  });
});
