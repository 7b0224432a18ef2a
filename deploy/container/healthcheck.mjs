// The images' HEALTHCHECK (docs/deploy.md#health): GET a health path on this container's own port.
// Plain Node, so the image needs no curl. Exit 0 only for a 2xx within the deadline.
/* global fetch, AbortSignal */
const path = process.argv[2] ?? '/healthz';
const port = process.env.PORT ?? '3000';
try {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(4000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
