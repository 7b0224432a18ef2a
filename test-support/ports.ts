import { createServer, type Server } from 'node:net';

/** A loopback port held open by a listener the test owns, so that nothing else can bind it. */
export async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

/** A loopback port that was free a moment ago and has no listener: connections are refused. */
export async function freePort(): Promise<number> {
  const { port, server } = await holdPort();
  await new Promise((resolve) => server.close(resolve));
  return port;
}
