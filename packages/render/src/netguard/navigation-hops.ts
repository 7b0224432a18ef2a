import type { ProxyChannel, ProxyFailure, Refusal } from './guard-proxy.js';

// A page's main-frame navigation, hop by hop (redirects included), against what its proxy channel
// saw: renders and session start answer 400 naming a hop the policy refused, and 502 with the
// reason for a hop the proxy could not reach (docs/render.md#private-network-policy).

function normalHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

/** The first hop the channel refused or could not reach, or undefined when every hop went out. */
export function judgeHops(
  urls: readonly string[],
  channel: ProxyChannel,
): { refused: Refusal } | { unreachable: ProxyFailure } | undefined {
  for (const raw of urls) {
    const url = new URL(raw);
    const host = normalHost(url.hostname);
    const refusal = channel.refusals.find((r) => normalHost(r.host) === host);
    if (refusal) return { refused: refusal };
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const failure = channel.failures.find(
      (f) => f.target === url.href || f.target === `${host}:${port}`,
    );
    if (failure) return { unreachable: failure };
  }
  return undefined;
}
