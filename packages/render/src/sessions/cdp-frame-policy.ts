import { isAbsolute, relative, resolve } from 'node:path';

// What the CDP door lets a client send (issue 4; spec 1 §4.3 policy rule 6: "everything a CDP
// client drives, including contexts it creates itself"). Chromium obeys whoever holds its
// DevTools socket, so the door parses every client frame and refuses, with a CDP error reply, the
// ones that would step around the guard proxy or touch the server's filesystem.

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

export interface FramePolicy {
  /** The session's own temp dir for downloads; any download path is confined to it. */
  downloadDir: string;
  /** The session's own temp dir; file inputs may only name files inside it. */
  sandboxDir: string;
}

// JSON-RPC "invalid request" / "parse error" codes, as Chromium itself answers them.
const PARSE_ERROR = -32700;
const REFUSED = -32000;

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

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, resolve(dir, path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

// Maps, not object literals: a method named `constructor` or `toString` must find nothing here.
const URL_PARAM: ReadonlyMap<string, string> = new Map([
  ['Page.navigate', 'url'],
  ['Target.createTarget', 'url'],
  ['Network.loadNetworkResource', 'url'],
  ['Fetch.continueRequest', 'url'],
  ['Network.continueInterceptedRequest', 'url'],
]);

/** Methods no client gets: each hands out a channel or a file the door cannot watch. */
const FORBIDDEN: ReadonlyMap<string, string> = new Map([
  // Gives page script a browser-level CDP channel that never passes through the door.
  [
    'Target.exposeDevToolsProtocol',
    'Target.exposeDevToolsProtocol is not available through the door',
  ],
  ['Extensions.loadUnpacked', 'loading extensions from the server filesystem is not allowed'],
]);

/** The list of server file paths a command would read, if it names any. */
function fileParams(method: string, params: Record<string, unknown> | undefined): unknown {
  if (method === 'DOM.setFileInputFiles' || method === 'Page.handleFileChooser') {
    return params?.['files'] ?? (method === 'DOM.setFileInputFiles' ? null : undefined);
  }
  if (method === 'Input.dispatchDragEvent') {
    const data = params?.['data'];
    return isRecord(data) ? data['files'] : undefined;
  }
  return undefined;
}

type Judged =
  { ok: true; params: Record<string, unknown> | undefined } | { ok: false; message: string };

function judgeParams(
  method: string,
  params: Record<string, unknown> | undefined,
  policy: FramePolicy,
): Judged {
  const forbidden = FORBIDDEN.get(method);
  if (forbidden) return { ok: false, message: forbidden };
  const urlParam = URL_PARAM.get(method);
  if (urlParam && params && params[urlParam] !== undefined) {
    // Fetch.continueRequest may omit url (continue unchanged); navigation must name one.
    if (!navigableUrl(params[urlParam])) {
      return { ok: false, message: `${method}: only http(s) URLs and about:blank may be opened` };
    }
  } else if (urlParam && (method === 'Page.navigate' || method === 'Target.createTarget')) {
    return { ok: false, message: `${method}: url is required` };
  }
  if (method === 'Target.createBrowserContext' && params) {
    for (const field of ['proxyServer', 'proxyBypassList']) {
      if (params[field] !== undefined && params[field] !== null) {
        return {
          ok: false,
          message: `Target.createBrowserContext: ${field} is not allowed; every context uses the service's private-network proxy`,
        };
      }
    }
  }
  if (method === 'Browser.setDownloadBehavior' || method === 'Page.setDownloadBehavior') {
    const behavior = params?.['behavior'];
    if (behavior === 'deny') return { ok: true, params };
    if (behavior !== 'allow' && behavior !== 'allowAndName') {
      return {
        ok: false,
        message: `${method}: behavior must be deny, allow or allowAndName (downloads stay in the session's own folder)`,
      };
    }
    const path = params?.['downloadPath'];
    if (typeof path === 'string' && inside(policy.downloadDir, path)) return { ok: true, params };
    // A client's path names its own machine, not ours: confine the download to the session's
    // folder instead of writing where it says (Playwright sends its local temp dir on connect).
    return { ok: true, params: { ...params, downloadPath: policy.downloadDir } };
  }
  // Each of these reads files from the server's disk into the page (spec: "touch the server's
  // filesystem"); only the session's own folder is readable.
  const files = fileParams(method, params);
  if (files !== undefined) {
    if (
      !Array.isArray(files) ||
      files.some((f) => typeof f !== 'string' || !inside(policy.sandboxDir, f))
    ) {
      return { ok: false, message: `${method}: files outside the session folder are not readable` };
    }
  }
  return { ok: true, params };
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

function refusal(command: CdpCommand, message: string): FrameVerdict {
  return { ok: false, reply: errorReply(command.id, command.sessionId, REFUSED, message) };
}

/** Judges one client frame; a refusal carries the CDP error reply to send back instead. */
export function judgeClientFrame(text: string, policy: FramePolicy, depth = 0): FrameVerdict {
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
  // The old, non-flat way to talk to a target wraps a whole command in a string: judge it too.
  if (command.method === 'Target.sendMessageToTarget') {
    const inner = command.params?.['message'];
    if (typeof inner !== 'string' || depth > 0) return refusal(command, 'cannot parse CDP frame');
    const verdict = judgeClientFrame(inner, policy, depth + 1);
    if (!verdict.ok)
      return refusal(
        command,
        (JSON.parse(verdict.reply) as { error: { message: string } }).error.message.replace(
          /^havn: /,
          '',
        ),
      );
    if (verdict.text === inner) return { ok: true, text, command };
    const params = { ...command.params, message: verdict.text };
    return {
      ok: true,
      text: JSON.stringify({ ...command, params }),
      command: { ...command, params },
    };
  }
  const judged = judgeParams(command.method, command.params, policy);
  if (!judged.ok) return refusal(command, judged.message);
  if (judged.params === command.params) return { ok: true, text, command };
  const rewritten = { ...command, params: judged.params };
  return { ok: true, text: JSON.stringify(rewritten), command: rewritten };
}
