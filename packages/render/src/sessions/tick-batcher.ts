// Frames the door forwards leave in batches (issue 4, "Benchmark": door throughput at least 0.9
// of the browser's own socket). One read from either side often carries many CDP frames, and ws
// writes each frame on its own: a syscall per frame, on a machine whose cores Chromium needs.
// Corking the outgoing socket until the end of the current tick sends everything that one read
// produced in a single writev; nothing waits longer than the tick it was sent in.

/** The part of a socket the batcher uses (net.Socket, or any Duplex). */
export interface Corkable {
  cork(): void;
  uncork(): void;
}

/** Returns `hold()`: call it before a send; the socket is uncorked once the current tick ends. */
export function tickBatcher(socket: Corkable): () => void {
  let held = false;
  const release = (): void => {
    held = false;
    socket.uncork();
  };
  return () => {
    if (held) return;
    held = true;
    socket.cork();
    process.nextTick(release);
  };
}
