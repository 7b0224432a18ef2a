import { describe, expect, it } from 'vitest';
import { judgeClientFrame, type FramePolicy } from './cdp-frame-policy.js';

// The door's frame policy on its own: what passes untouched, what is rewritten, what is refused.

const policy: FramePolicy = {
  downloadDir: '/tmp/havn-session-x/downloads',
  sandboxDir: '/tmp/havn-session-x',
};
const frame = (
  method: string,
  params?: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => JSON.stringify({ id: 3, method, ...(params ? { params } : {}), ...extra });

function refusal(text: string): {
  id?: number;
  sessionId?: string;
  error: { code: number; message: string };
} {
  const verdict = judgeClientFrame(text, policy);
  if (verdict.ok) throw new Error(`expected a refusal of ${text}`);
  return JSON.parse(verdict.reply) as ReturnType<typeof refusal>;
}

describe('judgeClientFrame', () => {
  it('forwards ordinary commands byte for byte', () => {
    for (const text of [
      frame('Runtime.evaluate', { expression: '1' }, { sessionId: 'S1' }),
      frame('Page.navigate', { url: 'https://example.com/' }),
      frame('Target.createTarget', { url: 'about:blank' }),
      frame('Target.createBrowserContext', { disposeOnDetach: true }),
      frame('Browser.setDownloadBehavior', { behavior: 'deny' }),
      frame('Fetch.continueRequest', { requestId: 'r' }),
      // Unknown methods are Chromium's to answer, whatever their name.
      frame('constructor'),
      frame('toString', { url: 'file:///etc/passwd' }),
    ]) {
      const verdict = judgeClientFrame(text, policy);
      expect(verdict.ok && verdict.text).toBe(text);
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

  it('refuses a context with its own proxy, keeping id and sessionId', () => {
    const reply = refusal(
      frame('Target.createBrowserContext', { proxyServer: 'direct://' }, { sessionId: 'S' }),
    );
    expect(reply).toMatchObject({ id: 3, sessionId: 'S', error: { code: -32000 } });
    expect(reply.error.message).toMatch(/proxyServer is not allowed/);
    expect(
      refusal(frame('Target.createBrowserContext', { proxyBypassList: '<-loopback>' })).error
        .message,
    ).toMatch(/proxyBypassList/);
  });

  it('refuses navigation anywhere but http(s) and about:blank', () => {
    for (const url of [
      'file:///etc/passwd',
      'FILE:///etc',
      'chrome://settings',
      'view-source:http://a/',
      'data:text/html,x',
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

  it('confines downloads to the session folder and refuses the browser default', () => {
    const outside = judgeClientFrame(
      frame('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: '/etc' }),
      policy,
    );
    expect(outside.ok && JSON.parse(outside.text)).toMatchObject({
      params: { behavior: 'allow', downloadPath: policy.downloadDir },
    });
    const sneaky = judgeClientFrame(
      frame('Page.setDownloadBehavior', {
        behavior: 'allowAndName',
        downloadPath: `${policy.downloadDir}/../../x`,
      }),
      policy,
    );
    expect(sneaky.ok && JSON.parse(sneaky.text)).toMatchObject({
      params: { downloadPath: policy.downloadDir },
    });
    const within = frame('Browser.setDownloadBehavior', {
      behavior: 'allow',
      downloadPath: `${policy.downloadDir}/a`,
    });
    const kept = judgeClientFrame(within, policy);
    expect(kept.ok && kept.text).toBe(within);
    expect(
      refusal(frame('Browser.setDownloadBehavior', { behavior: 'default' })).error.message,
    ).toMatch(/behavior/);
  });

  it('refuses file inputs from outside the session folder and the page-side CDP binding', () => {
    expect(
      refusal(frame('DOM.setFileInputFiles', { files: ['/etc/passwd'], nodeId: 1 })).error.message,
    ).toMatch(/files/);
    const ok = judgeClientFrame(
      frame('DOM.setFileInputFiles', { files: [`${policy.sandboxDir}/upload.txt`], nodeId: 1 }),
      policy,
    );
    expect(ok.ok).toBe(true);
    expect(refusal(frame('Target.exposeDevToolsProtocol', { targetId: 't' }))).toBeTruthy();
    const drag = frame('Input.dispatchDragEvent', {
      type: 'drop',
      x: 1,
      y: 1,
      data: { items: [], files: ['/root/.ssh/id_rsa'], dragOperationsMask: 1 },
    });
    expect(refusal(drag).error.message).toMatch(/files outside/);
    const plainDrag = frame('Input.dispatchDragEvent', {
      type: 'dragEnter',
      x: 1,
      y: 1,
      data: { items: [], dragOperationsMask: 1 },
    });
    expect(judgeClientFrame(plainDrag, policy).ok).toBe(true);
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
      refusal(frame('Target.sendMessageToTarget', { message: '{nope', targetId: 't' })).error.code,
    ).toBe(-32000);
    const fine = frame('Target.sendMessageToTarget', {
      message: JSON.stringify({ id: 1, method: 'Runtime.enable' }),
    });
    const verdict = judgeClientFrame(fine, policy);
    expect(verdict.ok && verdict.text).toBe(fine);
  });
});
