import { WebSocket } from 'ws';

// A raw CDP client for the door tests: commands by id (top level or on a flat session), every
// event kept, and a wait for the first event that matches.

export interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  sessionId?: string;
}

export interface RawCdp {
  ws: WebSocket;
  events: CdpMessage[];
  /** Sends one command; resolves with its reply (a result or an error). */
  command(
    method: string,
    params?: Record<string, unknown>,
    sessionId?: string,
  ): Promise<CdpMessage>;
  /** Sends text as it is; resolves with the reply carrying `id`. */
  raw(text: string, id: number): Promise<CdpMessage>;
  /** The first event (past or future) that `match` accepts, within `timeoutMs`. */
  event(match: (event: CdpMessage) => boolean, timeoutMs?: number): Promise<CdpMessage>;
  close(): void;
}

export async function rawClient(url: string): Promise<RawCdp> {
  const ws = new WebSocket(url, { maxPayload: 512 * 1024 * 1024 });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const events: CdpMessage[] = [];
  const waiting = new Map<number, (reply: CdpMessage) => void>();
  const watchers = new Set<(event: CdpMessage) => void>();
  ws.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString()) as CdpMessage;
    if (message.id !== undefined) {
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    } else {
      events.push(message);
      for (const watcher of watchers) watcher(message);
    }
  });
  let next = 1;
  const raw = (text: string, id: number) =>
    new Promise<CdpMessage>((resolve) => {
      waiting.set(id, resolve);
      ws.send(text);
    });
  return {
    ws,
    events,
    raw,
    command: (method, params = {}, sessionId) => {
      const id = next++;
      return raw(JSON.stringify({ id, method, params, ...(sessionId && { sessionId }) }), id);
    },
    event: (match, timeoutMs = 10_000) => {
      const seen = events.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          watchers.delete(watcher);
          reject(new Error('no such event in time'));
        }, timeoutMs);
        const watcher = (event: CdpMessage) => {
          if (!match(event)) return;
          clearTimeout(timer);
          watchers.delete(watcher);
          resolve(event);
        };
        watchers.add(watcher);
      });
    },
    close: () => {
      ws.close();
    },
  };
}

/** Attaches to the first page target (flat mode); resolves with the CDP session id. */
export async function attachToPage(client: RawCdp): Promise<string> {
  const targets = await client.command('Target.getTargets');
  const infos = (targets.result?.['targetInfos'] ?? []) as { targetId: string; type: string }[];
  const page = infos.find((info) => info.type === 'page');
  if (!page) throw new Error('no page target');
  const attached = await client.command('Target.attachToTarget', {
    targetId: page.targetId,
    flatten: true,
  });
  return String(attached.result?.['sessionId']);
}
