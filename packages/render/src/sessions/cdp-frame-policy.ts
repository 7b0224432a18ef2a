import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { capturePixelsProblem, MAX_PAPER_INCHES, type CaptureLimits } from '../capture-limits.js';
import { refusedMethod } from './cdp-allowlist.js';
import { isInternalUrl, type TargetWatch } from './cdp-targets.js';

// What the CDP door lets a client send (docs/sessions.md#what-the-door-allows). Chromium obeys
// whoever holds its DevTools socket, so the door parses every client message, refuses any method
// not on the allow-list (cdp-allowlist.ts), and then judges the parameters that name a URL, a
// server path, a proxy, a certificate policy or a size. A refusal is a CDP error reply naming the
// method and why; the browser never sees the message.

/** A client command, as far as the door needs to read it. */
export interface CdpCommand {
  id: number;
  method: string;
  params?: Record<string, unknown>;
  sessionId?: string;
}

export type FrameVerdict =
  | {
      ok: true;
      /** The frame to forward: the original text, or a rewrite of it. */
      text: string;
      command: CdpCommand;
    }
  | { ok: false; reply: string };

/** How the door judges one client message (judgeClientFrame; the bench swaps in a parse-only one). */
export type FrameJudge = (text: string, policy: FramePolicy, targets: TargetWatch) => FrameVerdict;

export interface FramePolicy {
  /** Real path (symlinks resolved) of the session's own folder: every client path stays in it. */
  sessionDir: string;
  /** Where downloads land, inside `sessionDir`. */
  downloadDir: string;
  /** True only when the service allows insecure TLS and the session asked for it. */
  allowInsecureTls: boolean;
  limits: CaptureLimits;
  /**
   * The private-network policy's verdict on a URL a client navigates to: undefined to let it go,
   * or why it is refused. The proxy judges every request anyway; this makes a navigation to a
   * refused host fail in the client, naming the policy, instead of loading the proxy's 403 page.
   */
  checkUrl?: (url: string) => Promise<string | undefined>;
  /** The URL of one of the browser's targets, asked of the browser itself. */
  targetUrl?: (targetId: string) => Promise<string | undefined>;
}

/** Commands whose URL the door judges against the private-network policy before forwarding. */
const NAVIGATIONS: ReadonlySet<string> = new Set(['Page.navigate', 'Target.createTarget']);

// JSON-RPC "parse error" and Chromium's generic server error, as Chromium itself answers them.
const PARSE_ERROR = -32700;
const REFUSED = -32000;

type Params = Record<string, unknown> | undefined;
/** A refusal's reason, or the params to forward (the same object when nothing changed). */
type Judged = { ok: true; params: Params } | { ok: false; message: string };
type ParamJudge = (method: string, params: Params, policy: FramePolicy) => Judged;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorReply(
  id: number | undefined,
  sessionId: string | undefined,
  code: number,
  message: string,
): string {
  return JSON.stringify({
    ...(id === undefined ? {} : { id }),
    error: { code, message: `havn: ${message}` },
    ...(sessionId === undefined ? {} : { sessionId }),
  });
}

const pass = (params: Params): Judged => ({ ok: true, params });
const no = (message: string): Judged => ({ ok: false, message });

/** http(s) and the blank page; nothing that reads the server's files or the browser's internals. */
function navigableUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (value === 'about:blank') return true;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * `path` as a real absolute path inside `dir`, or undefined. Symlinks are followed (a link inside
 * the folder that points out of it is outside); a path that does not exist yet is judged by its
 * nearest existing parent. Relative paths are refused: Chromium resolves them against the
 * service's working directory, not the session's.
 */
export function confinedPath(dir: string, path: unknown): string | undefined {
  if (typeof path !== 'string' || !isAbsolute(path) || path.includes('\0')) return undefined;
  let real: string | undefined;
  let rest = '';
  for (let at = path; real === undefined;) {
    try {
      real = join(realpathSync(at), rest);
    } catch {
      const parent = dirname(at);
      if (parent === at) return undefined;
      rest = join(basename(at), rest);
      at = parent;
    }
  }
  const rel = relative(dir, real);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)) ? real : undefined;
}

function navigation(field: string, required: boolean): ParamJudge {
  return (method, params) => {
    const url = params?.[field];
    if (url === undefined && !required) return pass(params);
    if (url === undefined) return no(`${method}: ${field} is required`);
    return navigableUrl(url)
      ? pass(params)
      : no(`${method}: only http(s) URLs and about:blank may be opened`);
  };
}

/** Numbers a client sets that Chromium would turn into memory: each at most `max`. */
function overLimit(
  method: string,
  params: Params,
  fields: readonly string[],
  max: number,
  name: string,
): string | undefined {
  for (const field of fields) {
    const value = params?.[field];
    if (typeof value === 'number' && value > max) {
      return `${method}: ${field} ${value} is over ${name} (${max})`;
    }
  }
  return undefined;
}

function sized(fields: readonly string[], scaleField?: string): ParamJudge {
  return (method, params, { limits }) => {
    const problem =
      overLimit(method, params, fields, limits.maxViewport, 'MAX_VIEWPORT') ??
      (scaleField
        ? overLimit(
            method,
            params,
            [scaleField],
            limits.maxDeviceScaleFactor,
            'MAX_DEVICE_SCALE_FACTOR',
          )
        : undefined);
    if (problem) return no(problem);
    const [w, h] = fields.map((f) => params?.[f]);
    const scale = scaleField ? params?.[scaleField] : 1;
    if (typeof w === 'number' && typeof h === 'number' && typeof scale === 'number' && scale > 0) {
      const pixels = capturePixelsProblem(w, h, scale, limits);
      if (pixels) return no(`${method}: ${pixels}`);
    }
    return pass(params);
  };
}

const downloads: ParamJudge = (method, params, policy) => {
  const behavior = params?.['behavior'];
  if (behavior === 'deny') return pass(params);
  if (behavior !== 'allow' && behavior !== 'allowAndName') {
    return no(
      `${method}: behavior must be deny, allow or allowAndName (downloads stay in the session's own folder)`,
    );
  }
  const inside = confinedPath(policy.sessionDir, params?.['downloadPath']);
  if (inside === params?.['downloadPath']) return pass(params);
  // A path outside the folder names the client's own machine (Playwright sends its local temp
  // dir on connect), not ours: downloads land in the session's folder whatever it says.
  return pass({ ...params, downloadPath: inside ?? policy.downloadDir });
};

function files(pick: (params: Params) => unknown): ParamJudge {
  return (method, params, policy) => {
    const list = pick(params);
    if (list === undefined) return pass(params);
    if (!Array.isArray(list) || list.some((f) => !confinedPath(policy.sessionDir, f))) {
      return no(`${method}: only files inside the session folder can be read`);
    }
    return pass(params);
  };
}

function certificates(field: string): ParamJudge {
  return (method, params, policy) =>
    params?.[field] === true && !policy.allowInsecureTls
      ? no(
          `${method}: certificate errors are ignored only for a session created with insecureTls on a service with ALLOW_INSECURE_TLS=1`,
        )
      : pass(params);
}

const browserContext: ParamJudge = (method, params) => {
  for (const field of ['proxyServer', 'proxyBypassList']) {
    if (params?.[field] !== undefined && params[field] !== null) {
      return no(
        `${method}: ${field} is not allowed; every context uses the service's private-network proxy`,
      );
    }
  }
  const origins = params?.['originsWithUniversalNetworkAccess'];
  if (Array.isArray(origins) && origins.length > 0) {
    return no(`${method}: originsWithUniversalNetworkAccess is not allowed`);
  }
  return pass(params);
};

const pdf: ParamJudge = (method, params) => {
  for (const side of ['paperWidth', 'paperHeight']) {
    const v = params?.[side];
    if (typeof v === 'number' && !(v > 0 && v <= MAX_PAPER_INCHES)) {
      return no(`${method}: ${side} must be more than 0 and at most ${MAX_PAPER_INCHES} inches`);
    }
  }
  for (const margin of ['marginTop', 'marginBottom', 'marginLeft', 'marginRight']) {
    const v = params?.[margin];
    if (typeof v === 'number' && !(v >= 0 && v < MAX_PAPER_INCHES)) {
      return no(`${method}: ${margin} must be from 0 to under ${MAX_PAPER_INCHES} inches`);
    }
  }
  return pass(params);
};

const screenshot: ParamJudge = (method, params, { limits }) => {
  const clip = params?.['clip'];
  if (!isRecord(clip)) return pass(params);
  const { width, height, scale } = clip;
  if (typeof width !== 'number' || typeof height !== 'number') return pass(params);
  const problem = capturePixelsProblem(
    width,
    height,
    typeof scale === 'number' ? scale : 1,
    limits,
  );
  return problem ? no(`${method}: clip ${problem}`) : pass(params);
};

const windowBounds: ParamJudge = (method, params, policy) => {
  const bounds = params?.['bounds'];
  if (!isRecord(bounds)) return pass(params);
  const judged = sized(['width', 'height'])(method, bounds, policy);
  return judged.ok ? pass(params) : judged;
};

/** `first`, then `second` on what `first` passed. */
function both(first: ParamJudge, second: ParamJudge): ParamJudge {
  return (method, params, policy) => {
    const judged = first(method, params, policy);
    return judged.ok ? second(method, judged.params, policy) : judged;
  };
}

// Maps, not object literals: a method named `constructor` or `toString` must find nothing here.
const PARAM_JUDGES: ReadonlyMap<string, ParamJudge> = new Map([
  ['Page.navigate', navigation('url', true)],
  ['Target.createTarget', both(navigation('url', true), sized(['width', 'height']))],
  ['Network.loadNetworkResource', navigation('url', true)],
  ['Fetch.continueRequest', navigation('url', false)],
  ['Network.continueInterceptedRequest', navigation('url', false)],
  ['Target.createBrowserContext', browserContext],
  ['Browser.setDownloadBehavior', downloads],
  ['Page.setDownloadBehavior', downloads],
  ['DOM.setFileInputFiles', files((p) => p?.['files'] ?? null)],
  ['Page.handleFileChooser', files((p) => p?.['files'])],
  [
    'Input.dispatchDragEvent',
    files((p) => (isRecord(p?.['data']) ? p['data']['files'] : undefined)),
  ],
  ['Security.setIgnoreCertificateErrors', certificates('ignore')],
  ['Security.setOverrideCertificateErrors', certificates('override')],
  [
    'Emulation.setDeviceMetricsOverride',
    both(sized(['width', 'height'], 'deviceScaleFactor'), sized(['screenWidth', 'screenHeight'])),
  ],
  ['Emulation.setVisibleSize', sized(['width', 'height'])],
  ['Emulation.addScreen', sized(['width', 'height'], 'devicePixelRatio')],
  ['Emulation.updateScreen', sized(['width', 'height'], 'devicePixelRatio')],
  ['Browser.setContentsSize', sized(['width', 'height'])],
  ['Browser.setWindowBounds', windowBounds],
  ['Page.startScreencast', sized(['maxWidth', 'maxHeight'])],
  ['Page.captureScreenshot', screenshot],
  ['Page.printToPDF', pdf],
]);

/** Commands that name a target by `targetId`: none may name a devtools:, chrome: or file: page. */
const TARGETED: ReadonlySet<string> = new Set([
  'Target.attachToTarget',
  'Target.activateTarget',
  'Target.autoAttachRelated',
  'Target.sendMessageToTarget',
]);

function judgeCommand(command: CdpCommand, policy: FramePolicy, targets: TargetWatch): Judged {
  const { method, params } = command;
  const refused = refusedMethod(method);
  if (refused) return no(refused);
  if (command.sessionId !== undefined && targets.blocked(command.sessionId)) {
    return no(`${method}: that session's target is a browser-internal page no client may drive`);
  }
  if (TARGETED.has(method)) {
    const targetId = params?.['targetId'];
    const sessionId = params?.['sessionId'];
    if (
      (typeof targetId === 'string' && targets.forbidden(targetId)) ||
      (typeof sessionId === 'string' && targets.blocked(sessionId))
    ) {
      return no(`${method}: devtools:, chrome: and file: targets are not open to clients`);
    }
  }
  const judge = PARAM_JUDGES.get(method);
  return judge ? judge(method, params, policy) : pass(params);
}

/**
 * The checks that need an answer from elsewhere (a DNS lookup, the browser's target list), for a
 * command that passed the synchronous ones: a promise of the refusal's reason (undefined to let
 * it go), or undefined when the command needs none. The door holds later messages meanwhile.
 */
export function laterCheck(
  command: CdpCommand,
  policy: FramePolicy,
  targets: TargetWatch,
): Promise<string | undefined> | undefined {
  const url = command.params?.['url'];
  if (policy.checkUrl && NAVIGATIONS.has(command.method) && typeof url === 'string') {
    return policy.checkUrl(url);
  }
  // A target the door has not seen yet (attached before its first navigation committed, or
  // named from a target list): ask the browser what it shows.
  const targetId = command.params?.['targetId'];
  const { targetUrl } = policy;
  const unseen = typeof targetId === 'string' && !targets.known(targetId);
  if (targetUrl && TARGETED.has(command.method) && unseen) {
    return targetUrl(targetId).then((shown) => {
      if (shown === undefined || !isInternalUrl(shown)) return undefined;
      targets.markInternal(targetId);
      return 'devtools:, chrome: and file: targets are not open to clients';
    });
  }
  return undefined;
}

function parseCommand(text: string): CdpCommand | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const { id, method, params, sessionId } = value;
  if (typeof id !== 'number' || !Number.isInteger(id) || typeof method !== 'string')
    return undefined;
  if (params !== undefined && !isRecord(params)) return undefined;
  if (sessionId !== undefined && typeof sessionId !== 'string') return undefined;
  return value as unknown as CdpCommand;
}

/** The CDP error reply that refuses `command`, saying why. */
export function refusalText(command: CdpCommand, message: string): string {
  return errorReply(command.id, command.sessionId, REFUSED, message);
}

function refusal(command: CdpCommand, message: string): FrameVerdict {
  return { ok: false, reply: refusalText(command, message) };
}

/** Judges one client message; a refusal carries the CDP error reply to send back instead. */
export function judgeClientFrame(
  text: string,
  policy: FramePolicy,
  targets: TargetWatch,
  depth = 0,
): FrameVerdict {
  const command = parseCommand(text);
  if (!command) {
    const id = /"id"\s*:\s*(\d+)/.exec(text)?.[1];
    return {
      ok: false,
      reply: errorReply(
        id === undefined ? undefined : Number(id),
        undefined,
        PARSE_ERROR,
        'cannot parse CDP frame',
      ),
    };
  }
  const judged = judgeCommand(command, policy, targets);
  if (!judged.ok) return refusal(command, judged.message);
  // The old, non-flat way to talk to a target wraps a whole command in a string: judge it too.
  if (command.method === 'Target.sendMessageToTarget') {
    const inner = command.params?.['message'];
    if (typeof inner !== 'string' || depth > 0) return refusal(command, 'cannot parse CDP frame');
    const verdict = judgeClientFrame(inner, policy, targets, depth + 1);
    if (!verdict.ok) {
      const { message } = (JSON.parse(verdict.reply) as { error: { message: string } }).error;
      return refusal(command, message.replace(/^havn: /, ''));
    }
    if (verdict.text === inner) return { ok: true, text, command };
    const params = { ...command.params, message: verdict.text };
    return {
      ok: true,
      text: JSON.stringify({ ...command, params }),
      command: { ...command, params },
    };
  }
  if (judged.params === command.params) return { ok: true, text, command };
  const rewritten = { ...command, params: judged.params };
  return { ok: true, text: JSON.stringify(rewritten), command: rewritten };
}
