import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { isRecord } from '@havn/shared';
import { capturePixelsProblem, MAX_PAPER_INCHES } from '../../capture-limits.js';
import type { FramePolicy } from './cdp-frame-policy.js';

// The door's judges of parameters that name a URL, a server path, a proxy, a certificate policy
// or a size (docs/sessions.md#what-the-door-allows), one per method that needs one. Each answers
// the params to forward (the same object when nothing changed) or why the message is refused.

export type Params = Record<string, unknown> | undefined;
/** A refusal's reason, or the params to forward (the same object when nothing changed). */
export type Judged = { ok: true; params: Params } | { ok: false; message: string };
type ParamJudge = (method: string, params: Params, policy: FramePolicy) => Judged;

export const pass = (params: Params): Judged => ({ ok: true, params });
export const no = (message: string): Judged => ({ ok: false, message });

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
  // A context whose client set a behaviour that goes through is the client's from here on.
  const claim = () => {
    const context = params?.['browserContextId'];
    if (method === 'Browser.setDownloadBehavior' && typeof context === 'string') {
      policy.claimDownloads?.(context);
    }
  };
  if (behavior === 'deny') {
    claim();
    return pass(params);
  }
  // The page-level call sends no download events, so the service could neither follow nor bound
  // what it lets in (docs/sessions.md#downloads): only the browser-level one allows downloads.
  if (method === 'Page.setDownloadBehavior') {
    return no(
      `${method}: only deny is allowed here; allow downloads with Browser.setDownloadBehavior, whose download events the service follows`,
    );
  }
  if (behavior !== 'allow' && behavior !== 'allowAndName') {
    return no(
      `${method}: behavior must be deny, allow or allowAndName (downloads stay in the session's own folder)`,
    );
  }
  // Whatever path a client names (its own machine's, when Playwright sends its temp dir), downloads
  // land in the session's folder, where the service keeps them as artifacts; Chromium reports
  // their progress to the door (docs/sessions.md#downloads).
  const wanted = { ...params, downloadPath: policy.downloadDir, eventsEnabled: true };
  const same = Object.entries(wanted).every(([key, value]) => params?.[key] === value);
  claim();
  return pass(same ? params : wanted);
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
/**
 * A trace comes back as plain JSON only, the one form in which the door can take the browser's
 * command line out of it (trace-redactor.ts): no gzip, no protobuf, no Perfetto config.
 */
const tracing: ParamJudge = (method, params) => {
  const compression = params?.['streamCompression'];
  if (compression !== undefined && compression !== 'none') {
    return no(`${method}: streamCompression must be none (the door reads every trace)`);
  }
  const format = params?.['streamFormat'];
  if (format !== undefined && format !== 'json') {
    return no(`${method}: streamFormat must be json (the door reads every trace)`);
  }
  if (params?.['perfettoConfig'] !== undefined) {
    return no(`${method}: perfettoConfig is not allowed (its traces are protobuf)`);
  }
  return pass(params);
};

export const PARAM_JUDGES: ReadonlyMap<string, ParamJudge> = new Map([
  ['Tracing.start', tracing],
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
