import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CAPTURE_LIMITS } from '../../capture-limits.js';
import { judgeClientFrame, type FramePolicy } from './cdp-frame-policy.js';
import { confinedPath } from './cdp-param-judges.js';
import { TargetWatch } from './cdp-targets.js';

// The door's frame policy on its own: what passes untouched, what is rewritten, what is refused.
// The session folder is a real one, so symlinks are judged by where they really point.

const root = realpathSync(mkdtempSync(join(tmpdir(), 'havn-policy-test-')));
const sessionDir = join(root, 'session');
mkdirSync(join(sessionDir, 'downloads'), { recursive: true });
symlinkSync('/etc', join(sessionDir, 'etc-link'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const policy: FramePolicy = {
  sessionDir,
  downloadDir: join(sessionDir, 'downloads'),
  allowInsecureTls: false,
  limits: DEFAULT_CAPTURE_LIMITS,
};
const frame = (
  method: string,
  params?: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => JSON.stringify({ id: 3, method, ...(params ? { params } : {}), ...extra });

function judge(text: string, targets = new TargetWatch(), p = policy) {
  return judgeClientFrame(text, p, targets);
}

function refusal(
  text: string,
  targets?: TargetWatch,
): {
  id?: number;
  sessionId?: string;
  error: { code: number; message: string };
} {
  const verdict = judge(text, targets);
  if (verdict.ok) throw new Error(`expected a refusal of ${text}`);
  return JSON.parse(verdict.reply) as ReturnType<typeof refusal>;
}

describe('the allow-list', () => {
  it('forwards what automation clients send, byte for byte', () => {
    for (const text of [
      frame('Runtime.evaluate', { expression: '1' }, { sessionId: 'S1' }),
      frame('Page.navigate', { url: 'https://example.com/' }),
      frame('Target.createTarget', { url: 'about:blank' }),
      frame('Target.createBrowserContext', { disposeOnDetach: true }),
      frame('Browser.setDownloadBehavior', { behavior: 'deny' }),
      frame('Fetch.continueRequest', { requestId: 'r' }),
      frame('Tracing.start', { transferMode: 'ReturnAsStream' }),
      frame('Profiler.startPreciseCoverage', { callCount: true }),
      frame('Page.printToPDF', { paperWidth: 8.27, paperHeight: 11.7, marginTop: 0.4 }),
      frame('Emulation.setDeviceMetricsOverride', {
        width: 1280,
        height: 720,
        deviceScaleFactor: 2,
        mobile: false,
      }),
      frame('Security.setIgnoreCertificateErrors', { ignore: false }),
    ]) {
      const verdict = judge(text);
      expect(verdict.ok && verdict.text, text).toBe(text);
    }
  });

  it('refuses every method not on the list, naming it and why', () => {
    for (const [method, why] of [
      ['Tethering.bind', /opens a listening port/],
      ['Target.setRemoteLocations', /outside the proxy/],
      ['Target.openDevTools', /DevTools frontend/],
      ['Target.exposeDevToolsProtocol', /bypasses the door/],
      ['Extensions.loadUnpacked', /server filesystem/],
      ['Browser.crash', /not automation/],
      ['Page.crash', /not automation/],
      ['SystemInfo.getInfo', /not on its allow-list/],
      ['Storage.overrideQuotaForOrigin', /not on its allow-list/],
      ['PWA.install', /not on its allow-list/],
      ['Cast.startTabMirroring', /not on its allow-list/],
      // Names that are not Domain.method at all, inherited names included.
      ['constructor', /not a CDP method name/],
      ['Page', /not a CDP method name/],
      ['Page.__proto__', /not a CDP method name/],
    ] as const) {
      const reply = refusal(frame(method, {}, { sessionId: 'S' }));
      expect(reply, method).toMatchObject({ id: 3, sessionId: 'S', error: { code: -32000 } });
      expect(reply.error.message, method).toContain(`havn: ${method}`);
      expect(reply.error.message, method).toMatch(why);
    }
  });

  it('refuses unparseable frames with a CDP parse error', () => {
    for (const text of [
      'not json',
      '[]',
      '{"id":"1","method":"x"}',
      '{"id":1}',
      '{"id":4,"method":"A.b","params":3}',
    ]) {
      expect(refusal(text).error.code).toBe(-32700);
    }
    expect(refusal('{"id":4,"method":"A.b","params":3}').id).toBe(4);
  });
});

describe('parameters', () => {
  it('refuses a context with its own proxy or universal network access', () => {
    expect(
      refusal(frame('Target.createBrowserContext', { proxyServer: 'direct://' })).error.message,
    ).toMatch(/proxyServer is not allowed/);
    expect(
      refusal(frame('Target.createBrowserContext', { proxyBypassList: '<-loopback>' })).error
        .message,
    ).toMatch(/proxyBypassList/);
    expect(
      refusal(
        frame('Target.createBrowserContext', {
          originsWithUniversalNetworkAccess: ['http://a'],
        }),
      ).error.message,
    ).toMatch(/originsWithUniversalNetworkAccess/);
  });

  it('refuses navigation anywhere but http(s) and about:blank', () => {
    for (const url of [
      'file:///etc/passwd',
      'FILE:///etc',
      'chrome://settings',
      'devtools://devtools/bundled/inspector.html',
      'chrome-untrusted://x',
      'view-source:http://a/',
      'javascript:1',
      'about:config',
      '',
    ]) {
      expect(refusal(frame('Page.navigate', { url })).error.message).toMatch(/only http\(s\) URLs/);
      expect(refusal(frame('Target.createTarget', { url })).error.message).toMatch(
        /only http\(s\) URLs/,
      );
    }
    expect(
      refusal(frame('Network.loadNetworkResource', { url: 'file:///etc/passwd', frameId: 'f' })),
    ).toBeTruthy();
    expect(
      refusal(frame('Fetch.continueRequest', { requestId: 'r', url: 'file:///etc/passwd' })),
    ).toBeTruthy();
    expect(refusal(frame('Page.navigate', {})).error.message).toMatch(/url is required/);
  });

  it('puts downloads in the session folder whatever path is named, with progress events on', () => {
    for (const downloadPath of [
      '.',
      'downloads',
      '/etc',
      `${sessionDir}/../x`,
      `${sessionDir}/etc-link`,
      `${sessionDir}/downloads/elsewhere`,
    ]) {
      const verdict = judge(
        frame('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath }),
      );
      expect(verdict.ok && JSON.parse(verdict.text), downloadPath).toMatchObject({
        params: { behavior: 'allow', downloadPath: policy.downloadDir, eventsEnabled: true },
      });
    }
    const already = frame('Browser.setDownloadBehavior', {
      behavior: 'allowAndName',
      downloadPath: policy.downloadDir,
      eventsEnabled: true,
    });
    const kept = judge(already);
    expect(kept.ok && kept.text).toBe(already);
    // The page-level call sends no download events: it may only deny.
    for (const behavior of ['allow', 'allowAndName']) {
      expect(
        refusal(frame('Page.setDownloadBehavior', { behavior, downloadPath: '.' })).error.message,
      ).toMatch(/only deny .* Browser\.setDownloadBehavior/);
    }
    expect(judge(frame('Page.setDownloadBehavior', { behavior: 'deny' })).ok).toBe(true);
    expect(
      refusal(frame('Browser.setDownloadBehavior', { behavior: 'default' })).error.message,
    ).toMatch(/behavior/);
  });

  it('reads files only from inside the session folder', () => {
    for (const files of [['/etc/passwd'], ['upload.txt'], [`${sessionDir}/etc-link/passwd`], 'x']) {
      expect(
        refusal(frame('DOM.setFileInputFiles', { files, nodeId: 1 })).error.message,
        String(files),
      ).toMatch(/only files inside the session folder/);
    }
    expect(
      judge(frame('DOM.setFileInputFiles', { files: [`${sessionDir}/a.txt`], nodeId: 1 })).ok,
    ).toBe(true);
    const drag = (files?: string[]) =>
      frame('Input.dispatchDragEvent', {
        type: 'drop',
        x: 1,
        y: 1,
        data: { items: [], ...(files && { files }), dragOperationsMask: 1 },
      });
    expect(refusal(drag(['/root/.ssh/id_rsa'])).error.message).toMatch(/session folder/);
    expect(judge(drag()).ok).toBe(true);
    expect(
      refusal(frame('Page.handleFileChooser', { action: 'accept', files: ['/etc/shadow'] })),
    ).toBeTruthy();
  });

  it('ignores certificate errors only where the session may', () => {
    expect(
      refusal(frame('Security.setIgnoreCertificateErrors', { ignore: true })).error.message,
    ).toMatch(/insecureTls/);
    expect(
      refusal(frame('Security.setOverrideCertificateErrors', { override: true })),
    ).toBeTruthy();
    const insecure = { ...policy, allowInsecureTls: true };
    expect(
      judge(
        frame('Security.setIgnoreCertificateErrors', { ignore: true }),
        new TargetWatch(),
        insecure,
      ).ok,
    ).toBe(true);
  });

  it('bounds sizes by the capture limits, naming the limit', () => {
    const over: [string, Record<string, unknown>, RegExp][] = [
      [
        'Emulation.setDeviceMetricsOverride',
        { width: 16384, height: 100, deviceScaleFactor: 1, mobile: false },
        /MAX_VIEWPORT \(8192\)/,
      ],
      [
        'Emulation.setDeviceMetricsOverride',
        { width: 100, height: 100, deviceScaleFactor: 9, mobile: false },
        /MAX_DEVICE_SCALE_FACTOR/,
      ],
      [
        'Emulation.setDeviceMetricsOverride',
        { width: 8000, height: 8000, deviceScaleFactor: 1, mobile: false },
        /MAX_CAPTURE_PIXELS/,
      ],
      [
        'Emulation.setDeviceMetricsOverride',
        { width: 0, height: 0, deviceScaleFactor: 0, mobile: false, screenWidth: 99999 },
        /screenWidth/,
      ],
      ['Emulation.setVisibleSize', { width: 100000, height: 1 }, /MAX_VIEWPORT/],
      [
        'Browser.setWindowBounds',
        { windowId: 1, bounds: { width: 50000, height: 10 } },
        /MAX_VIEWPORT/,
      ],
      ['Browser.setContentsSize', { windowId: 1, width: 50000 }, /MAX_VIEWPORT/],
      ['Target.createTarget', { url: 'about:blank', width: 50000, height: 10 }, /MAX_VIEWPORT/],
      ['Page.startScreencast', { maxWidth: 50000 }, /MAX_VIEWPORT/],
      [
        'Page.captureScreenshot',
        { clip: { x: 0, y: 0, width: 8000, height: 8000, scale: 2 } },
        /MAX_CAPTURE_PIXELS/,
      ],
      [
        'Page.printToPDF',
        { paperWidth: 200000 },
        /paperWidth must be more than 0 and at most 200 inches/,
      ],
      ['Page.printToPDF', { marginLeft: -1 }, /marginLeft/],
    ];
    for (const [method, params, message] of over) {
      expect(refusal(frame(method, params)).error.message, method).toMatch(message);
    }
  });
});

describe('targets', () => {
  const internal = new TargetWatch();
  internal.note(
    JSON.stringify({
      method: 'Target.attachedToTarget',
      params: {
        sessionId: 'DEV',
        targetInfo: { targetId: 'T-dev', type: 'page', url: 'devtools://devtools/bundled/x.html' },
        waitingForDebugger: false,
      },
    }),
  );
  internal.note(
    JSON.stringify({
      method: 'Target.targetCreated',
      params: { targetInfo: { targetId: 'T-chrome', type: 'page', url: 'chrome://version/' } },
    }),
  );
  internal.note(
    JSON.stringify({
      method: 'Target.attachedToTarget',
      params: {
        sessionId: 'WEB',
        targetInfo: { targetId: 'T-web', type: 'page', url: 'https://a/' },
      },
    }),
  );

  it('refuses attaching to, and driving, a browser-internal page', () => {
    for (const text of [
      frame('Target.attachToTarget', { targetId: 'T-chrome', flatten: true }),
      frame('Target.activateTarget', { targetId: 'T-dev' }),
      frame('Runtime.evaluate', { expression: '1' }, { sessionId: 'DEV' }),
      frame('Target.sendMessageToTarget', {
        sessionId: 'DEV',
        message: JSON.stringify({ id: 1, method: 'Runtime.enable' }),
      }),
    ]) {
      expect(refusal(text, internal).error.message, text).toMatch(/devtools:|browser-internal/);
    }
    expect(
      judge(frame('Runtime.evaluate', { expression: '1' }, { sessionId: 'WEB' }), internal).ok,
    ).toBe(true);
    expect(internal.targetOf('WEB')).toBe('T-web');
  });

  it('judges commands wrapped in Target.sendMessageToTarget too', () => {
    const inner = JSON.stringify({
      id: 9,
      method: 'Page.navigate',
      params: { url: 'file:///etc/passwd' },
    });
    expect(
      refusal(frame('Target.sendMessageToTarget', { message: inner, targetId: 't' })).error.message,
    ).toMatch(/only http\(s\) URLs/);
    expect(
      refusal(
        frame('Target.sendMessageToTarget', {
          message: JSON.stringify({ id: 2, method: 'Tethering.bind', params: { port: 9 } }),
        }),
      ).error.message,
    ).toMatch(/Tethering.bind is not allowed/);
    expect(
      refusal(frame('Target.sendMessageToTarget', { message: '{nope', targetId: 't' })).error.code,
    ).toBe(-32000);
    const fine = frame('Target.sendMessageToTarget', {
      message: JSON.stringify({ id: 1, method: 'Runtime.enable' }),
    });
    const verdict = judge(fine);
    expect(verdict.ok && verdict.text).toBe(fine);
  });
});

describe('confinedPath', () => {
  it('answers the real path inside the folder, or nothing', () => {
    expect(confinedPath(sessionDir, `${sessionDir}/downloads/../a.txt`)).toBe(
      `${sessionDir}/a.txt`,
    );
    expect(confinedPath(sessionDir, sessionDir)).toBe(sessionDir);
    expect(confinedPath(sessionDir, `${sessionDir}/etc-link/passwd`)).toBeUndefined();
    expect(confinedPath(sessionDir, `${sessionDir}-other/x`)).toBeUndefined();
    expect(confinedPath(sessionDir, 'a.txt')).toBeUndefined();
    expect(confinedPath(sessionDir, `${sessionDir}/a\0b`)).toBeUndefined();
    expect(confinedPath(sessionDir, 3)).toBeUndefined();
  });
});
