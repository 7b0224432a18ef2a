import { WebSocket } from 'ws';

// CDP round trips against a session's page, the measure the sessions and render-cluster benchmarks
// share: Runtime.evaluate('1') with a fixed number of commands in flight.

/** A socket to `url` attached (flat) to its first page. */
export async function openPage(url: string): Promise<{ ws: WebSocket; sessionId: string }> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const reply = (id: number) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const on = (data: Buffer) => {
        const msg = JSON.parse(data.toString()) as Record<string, unknown>;
        if (msg['id'] === id) {
          ws.off('message', on);
          resolve(msg);
        }
      };
      ws.on('message', on);
    });
  ws.send(JSON.stringify({ id: 1, method: 'Target.getTargets' }));
  const targets = (await reply(1))['result'] as {
    targetInfos: { targetId: string; type: string }[];
  };
  const page = targets.targetInfos.find((t) => t.type === 'page');
  if (!page) throw new Error('no page target');
  ws.send(
    JSON.stringify({
      id: 2,
      method: 'Target.attachToTarget',
      params: { targetId: page.targetId, flatten: true },
    }),
  );
  const { sessionId } = (await reply(2))['result'] as { sessionId: string };
  return { ws, sessionId };
}

/** Runtime.evaluate('1') on `url`'s page for `ms` with `window` commands in flight; replies counted. */
export async function countRoundTrips(url: string, ms: number, window: number): Promise<number> {
  const { ws, sessionId } = await openPage(url);
  let next = 10;
  let done = 0;
  const deadline = performance.now() + ms;
  await new Promise<void>((resolve, reject) => {
    let inFlight = 0;
    // A lost reply or a dropped socket must fail the run, not hang it.
    const stalled = () => {
      reject(new Error(`${url}: ${String(inFlight)} commands unanswered for 10 s`));
    };
    const watchdog = setTimeout(stalled, ms + 10_000);
    const send = () => {
      inFlight++;
      ws.send(
        JSON.stringify({
          id: next++,
          sessionId,
          method: 'Runtime.evaluate',
          params: { expression: '1' },
        }),
      );
    };
    ws.on('message', () => {
      inFlight--;
      done++;
      watchdog.refresh();
      if (performance.now() < deadline) send();
      else if (inFlight === 0) {
        clearTimeout(watchdog);
        resolve();
      }
    });
    ws.on('close', (code) => {
      clearTimeout(watchdog);
      reject(new Error(`${url}: closed (${String(code)}) with ${String(inFlight)} in flight`));
    });
    for (let i = 0; i < window; i++) send();
  });
  ws.close();
  return done;
}
