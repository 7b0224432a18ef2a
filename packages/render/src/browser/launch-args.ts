// Chromium command-line flags that put a browser behind the guard proxy with no side doors
// (docs/render.md#private-network-policy). Sessions launch full Chromium with these same flags.

/** Flags for a browser whose only way out is the proxy at `proxyUrl` (`http://127.0.0.1:<port>`). */
export function policyLaunchArgs(proxyUrl: string): string[] {
  return [
    `--proxy-server=${proxyUrl}`,
    // Chromium bypasses any proxy for loopback, localhost and link-local by default; this
    // subtracts those implicit rules so every destination goes through the proxy.
    '--proxy-bypass-list=<-loopback>',
    // Any name the browser tries to resolve itself fails: the proxy resolves (and judges) names.
    // 127.0.0.1 stays resolvable so the proxy itself can be reached.
    '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
    // WebRTC must not open UDP outside the proxy (both spellings: the flag was renamed).
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-quic',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--disable-sync',
  ];
}

/**
 * Process flags: no GPU, no /dev/shm (small in containers), and Chromium's own sandbox unless
 * the machine cannot give it one (docs/render.md#browser-processes).
 */
export function runtimeLaunchArgs(options: { sandbox: boolean }): string[] {
  return ['--disable-gpu', ...(options.sandbox ? [] : ['--no-sandbox']), '--disable-dev-shm-usage'];
}

/** Every flag a Havn browser is launched with. */
export function browserLaunchArgs(proxyUrl: string, options: { sandbox: boolean }): string[] {
  return [...policyLaunchArgs(proxyUrl), ...runtimeLaunchArgs(options)];
}

/**
 * Bounds the V8 heap of each page's renderer: a page that allocates past it crashes alone (the
 * render answers 502 `page crashed`) instead of growing until the machine's memory runs out.
 */
export function pageHeapLaunchArgs(maxHeapMb: number): string[] {
  return [`--js-flags=--max-old-space-size=${maxHeapMb}`];
}
