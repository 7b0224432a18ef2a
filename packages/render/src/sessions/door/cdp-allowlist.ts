// What a client may send through the CDP door: an allow-list, one line per domain saying why
// (docs/sessions.md#what-the-door-allows). Chromium obeys whoever holds its DevTools socket, so a
// domain or method not named here is refused, whatever a future Chromium adds. The list covers
// what Playwright's connectOverCDP, Puppeteer's connect and chrome-remote-interface send to
// automate pages: targets and contexts, pages, input, emulation, screenshots, PDF, tracing,
// coverage, debugging, and network interception. Parameters that name a URL, a path, a proxy or
// a size are judged on top of this in cdp-frame-policy.ts.

interface DomainRule {
  /** Why clients get this domain: the line a reader checks the list against. */
  readonly why: string;
  /** Every method of the domain, or only these. */
  readonly methods: 'all' | readonly string[];
  /** Methods of an `all` domain that stay refused, each with its reason. */
  readonly except?: Readonly<Record<string, string>>;
}

const DOMAINS: readonly (readonly [string, DomainRule])[] = [
  [
    'Accessibility',
    { why: 'reads the accessibility tree (snapshots, role selectors)', methods: 'all' },
  ],
  ['Animation', { why: "inspects and controls the page's own animations", methods: 'all' }],
  ['Audits', { why: "reports the page's issues (mixed content, cookies, CSP)", methods: 'all' }],
  [
    'Browser',
    {
      why: 'version, permissions, downloads into the session folder, window size, close',
      methods: [
        'getVersion',
        'close',
        'setPermission',
        'grantPermissions',
        'resetPermissions',
        'setDownloadBehavior',
        'cancelDownload',
        'getWindowForTarget',
        'getWindowBounds',
        'setWindowBounds',
        'setContentsSize',
      ],
    },
  ],
  ['CSS', { why: 'style inspection and CSS coverage', methods: 'all' }],
  ['CacheStorage', { why: "the page's own Cache Storage", methods: 'all' }],
  ['Console', { why: 'console messages (older clients)', methods: 'all' }],
  [
    'DOM',
    { why: 'the document tree; file inputs read only from the session folder', methods: 'all' },
  ],
  ['DOMDebugger', { why: 'event listeners and DOM breakpoints', methods: 'all' }],
  ['DOMSnapshot', { why: 'document snapshots', methods: 'all' }],
  ['DOMStorage', { why: "the page's local and session storage", methods: 'all' }],
  ['Debugger', { why: 'JavaScript debugging and script sources (coverage)', methods: 'all' }],
  ['DeviceOrientation', { why: 'emulation of device orientation', methods: 'all' }],
  [
    'Emulation',
    { why: 'device metrics (bounded), media, locale, timezone, geolocation', methods: 'all' },
  ],
  ['EventBreakpoints', { why: 'JavaScript debugging', methods: 'all' }],
  [
    'Fetch',
    {
      why: 'request interception; a rewritten request still goes through the proxy',
      methods: 'all',
    },
  ],
  ['FindInPage', { why: 'text search in the page', methods: 'all' }],
  ['HeapProfiler', { why: "the page's JavaScript heap", methods: 'all' }],
  ['IO', { why: 'reads the streams the browser hands out (PDF, traces)', methods: 'all' }],
  ['IndexedDB', { why: "the page's own IndexedDB", methods: 'all' }],
  [
    'Input',
    {
      why: 'mouse, keyboard, touch and drag input; dragged files come from the session folder',
      methods: 'all',
    },
  ],
  ['Inspector', { why: 'target crash and detach events', methods: 'all' }],
  ['LayerTree', { why: 'compositing layers', methods: 'all' }],
  ['Log', { why: 'browser log entries', methods: 'all' }],
  ['Media', { why: "events of the page's media players", methods: 'all' }],
  ['Network', { why: 'events, cookies, headers, cache, throttling, interception', methods: 'all' }],
  ['Overlay', { why: 'highlighting elements', methods: 'all' }],
  [
    'Page',
    {
      why: 'navigation (http, https, about:blank), lifecycle, screenshots, screencast, PDF',
      methods: 'all',
      except: {
        crash: 'crashing the renderer is not automation',
        startScreenRecording: 'the session records through the service (record)',
        stopScreenRecording: 'the session records through the service (record)',
        produceCompilationCache: 'compilation caches are not automation',
        addCompilationCache: 'compilation caches are not automation',
        clearCompilationCache: 'compilation caches are not automation',
      },
    },
  ],
  ['Performance', { why: 'page metrics', methods: 'all' }],
  ['PerformanceTimeline', { why: 'performance timeline events', methods: 'all' }],
  ['Profiler', { why: 'CPU profiles and JavaScript coverage', methods: 'all' }],
  ['Runtime', { why: 'evaluating script in the page', methods: 'all' }],
  ['Schema', { why: 'lists the domains (older clients)', methods: 'all' }],
  [
    'Security',
    {
      why: 'security state; ignoring certificate errors only where the session may (insecureTls)',
      methods: 'all',
    },
  ],
  ['ServiceWorker', { why: "the page's own service workers", methods: 'all' }],
  [
    'Storage',
    {
      why: "cookies and the page's own storage, per context",
      methods: [
        'getStorageKeyForFrame',
        'getStorageKey',
        'clearDataForOrigin',
        'clearDataForStorageKey',
        'getCookies',
        'setCookies',
        'clearCookies',
        'getUsageAndQuota',
        'trackCacheStorageForOrigin',
        'trackCacheStorageForStorageKey',
        'trackIndexedDBForOrigin',
        'trackIndexedDBForStorageKey',
        'untrackCacheStorageForOrigin',
        'untrackCacheStorageForStorageKey',
        'untrackIndexedDBForOrigin',
        'untrackIndexedDBForStorageKey',
        'setStorageBucketTracking',
      ],
    },
  ],
  [
    'Target',
    {
      why: 'contexts and pages, and attaching to them (never to devtools:, chrome: or file: targets)',
      methods: [
        'getTargets',
        'getTargetInfo',
        'setDiscoverTargets',
        'setAutoAttach',
        'autoAttachRelated',
        'attachToTarget',
        'attachToBrowserTarget',
        'detachFromTarget',
        'sendMessageToTarget',
        'activateTarget',
        'createTarget',
        'closeTarget',
        'createBrowserContext',
        'getBrowserContexts',
        'disposeBrowserContext',
      ],
    },
  ],
  ['Tracing', { why: 'performance traces, returned as a stream', methods: 'all' }],
  ['WebAudio', { why: "inspects the page's audio graphs", methods: 'all' }],
  ['WebAuthn', { why: 'virtual authenticators for testing sign-in', methods: 'all' }],
];

/** Why a few well-known methods outside the list are refused; the rest get the generic reason. */
const KNOWN_REFUSALS: ReadonlyMap<string, string> = new Map([
  ['Target.exposeDevToolsProtocol', 'it gives page script a CDP channel that bypasses the door'],
  ['Target.setRemoteLocations', 'it makes the browser connect to hosts outside the proxy'],
  ['Target.openDevTools', 'the DevTools frontend speaks CDP that bypasses the door'],
  ['Target.getDevToolsTarget', 'the DevTools frontend speaks CDP that bypasses the door'],
  ['Tethering.bind', 'it opens a listening port on the server'],
  ['Extensions.loadUnpacked', 'it loads an extension from the server filesystem'],
  ['Browser.getBrowserCommandLine', "the browser's command line is the service's business"],
  ['Browser.crash', 'crashing the browser is not automation'],
  ['SystemInfo.getProcessInfo', "the server's processes are the service's business"],
  ['Storage.deleteStorageBucket', 'it crashes the browser on some arguments'],
]);

const RULES: ReadonlyMap<string, DomainRule> = new Map(DOMAINS);
// Sets, not object lookups: a method named `constructor` or `__proto__` must find nothing.
const LISTED: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  DOMAINS.map(([domain, rule]) => [
    domain,
    new Set(rule.methods === 'all' ? Object.keys(rule.except ?? {}) : rule.methods),
  ]),
);

const METHOD_NAME = /^[A-Z][A-Za-z]*\.[a-z][A-Za-z]*$/;

/** Undefined when `method` (`Domain.command`) may go through the door, else why it may not. */
export function refusedMethod(method: string): string | undefined {
  if (!METHOD_NAME.test(method)) return `${method} is not a CDP method name`;
  const dot = method.indexOf('.');
  const domain = method.slice(0, dot);
  const name = method.slice(dot + 1);
  const rule = RULES.get(domain);
  const listed = LISTED.get(domain);
  if (rule && listed) {
    const isListed = listed.has(name);
    if (rule.methods === 'all' ? !isListed : isListed) return undefined;
    const reason = rule.methods === 'all' ? rule.except?.[name] : undefined;
    if (reason !== undefined) return `${method} is not allowed through the door: ${reason}`;
  }
  const known = KNOWN_REFUSALS.get(method);
  if (known) return `${method} is not allowed through the door: ${known}`;
  return `${method} is not allowed through the door (not on its allow-list: docs/sessions.md#what-the-door-allows)`;
}
