import type { CaptureLimits } from '../../capture-limits.js';
import { refusedMethod } from './cdp-allowlist.js';
import { isRecord } from '@havn/shared';
import { no, pass, PARAM_JUDGES, type Judged } from './cdp-param-judges.js';
import { isInternalUrl, type TargetWatch } from './cdp-targets.js';

// What the CDP door lets a client send (docs/sessions.md#what-the-door-allows). Chromium obeys
// whoever holds its DevTools socket, so the door parses every client message, refuses any method
// not on the allow-list (cdp-allowlist.ts), and then judges the parameters that name a URL, a
// server path, a proxy, a certificate policy or a size (cdp-param-judges.ts). A refusal is a CDP error reply naming the
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
  /**
   * Told when a client sets a download behaviour for a context it created (`browserContextId`),
   * so the service leaves that context's behaviour to it: a `deny` holds (docs/sessions.md#downloads).
   */
  claimDownloads?: (browserContextId: string) => void;
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

/** A check that needs an answer from elsewhere, and what it waits on (for a refusal's message). */
export interface LaterCheck {
  /** The refusal's reason, or undefined to let the command go. */
  verdict: Promise<string | undefined>;
  /** What is awaited, e.g. `the address check of example.com`. */
  awaiting: string;
}

/**
 * The checks that need an answer from elsewhere (a DNS lookup, the browser's target list), for a
 * command that passed the synchronous ones, or undefined when the command needs none. The door
 * holds later messages meanwhile, for a bounded time (docs/sessions.md#where-the-door-waits).
 */
export function laterCheck(
  command: CdpCommand,
  policy: FramePolicy,
  targets: TargetWatch,
): LaterCheck | undefined {
  const url = command.params?.['url'];
  if (policy.checkUrl && NAVIGATIONS.has(command.method) && typeof url === 'string') {
    return { verdict: policy.checkUrl(url), awaiting: `the address check of ${hostOf(url)}` };
  }
  // A target the door has not seen yet (attached before its first navigation committed, or
  // named from a target list): ask the browser what it shows.
  const targetId = command.params?.['targetId'];
  const { targetUrl } = policy;
  const unseen = typeof targetId === 'string' && !targets.known(targetId);
  if (targetUrl && TARGETED.has(command.method) && unseen) {
    const verdict = targetUrl(targetId).then((shown) => {
      if (shown === undefined || !isInternalUrl(shown)) return undefined;
      targets.markInternal(targetId);
      return 'devtools:, chrome: and file: targets are not open to clients';
    });
    return { verdict, awaiting: `the browser's answer about target ${targetId}` };
  }
  return undefined;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname || 'the URL';
  } catch {
    return 'the URL';
  }
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

/**
 * What a view token may send (docs/sessions.md#live-view): the target list, attaching to a page
 * and its screencast. Everything else, input and Runtime first of all, is refused before the
 * general judge sees it.
 */
const WATCHER_METHODS: ReadonlySet<string> = new Set([
  'Target.setDiscoverTargets',
  'Target.getTargets',
  'Target.getTargetInfo',
  'Target.attachToTarget',
  'Target.detachFromTarget',
  'Page.enable',
  'Page.startScreencast',
  'Page.stopScreencast',
  'Page.screencastFrameAck',
]);

/** judgeClientFrame for a client holding the view token: only WATCHER_METHODS pass. */
export const judgeWatcherFrame: FrameJudge = (text, policy, targets) => {
  const command = parseCommand(text);
  if (command && !WATCHER_METHODS.has(command.method)) {
    return refusal(
      command,
      `${command.method} is not allowed with a view token: it may only watch (the target list and the screencast)`,
    );
  }
  return judgeClientFrame(text, policy, targets);
};
