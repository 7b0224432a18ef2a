// The live view's page (docs/sessions.md#live-view): a small, self-contained document that is
// itself a CDP client of the door. It screencasts the session's active tab into an <img> and,
// unless read-only, turns clicks, wheel turns and keys into CDP input events, which the door
// judges like any client's. Tabs are listed from the browser's own target events.

/** The page's script, run in the viewer's browser; the session id and token come as JSON. */
const SCRIPT = String.raw`
const { id, token, interactive } = JSON.parse(document.getElementById('session').textContent);
const img = document.getElementById('screen');
const tabs = document.getElementById('tabs');
const state = document.getElementById('state');
const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
const ws = new WebSocket(scheme + '://' + location.host + '/v1/sessions/' + id + '/cdp?token=' + encodeURIComponent(token));
let next = 1, page = null, pageTarget = null, size = { width: 1, height: 1 };
const waiting = new Map();
const send = (method, params = {}, sessionId) => new Promise((resolve) => {
  const msg = { id: next++, method, params };
  if (sessionId) msg.sessionId = sessionId;
  waiting.set(msg.id, resolve);
  ws.send(JSON.stringify(msg));
});
const pages = new Map();
function listTabs() {
  tabs.replaceChildren(...[...pages.values()].map((t) => {
    const o = document.createElement('option');
    o.value = t.targetId; o.textContent = t.title || t.url || 'tab'; o.selected = t.targetId === pageTarget;
    return o;
  }));
}
async function watch(targetId) {
  if (page) { send('Page.stopScreencast', {}, page); send('Target.detachFromTarget', { sessionId: page }); }
  pageTarget = targetId; listTabs();
  const { result } = await send('Target.attachToTarget', { targetId, flatten: true });
  page = result && result.sessionId;
  if (!page) return;
  await send('Page.enable', {}, page);
  await send('Page.startScreencast', { format: 'jpeg', quality: 70 }, page);
}
ws.onmessage = (event) => {
  const msg = JSON.parse(event.data);
  if (msg.id && waiting.has(msg.id)) { waiting.get(msg.id)(msg); waiting.delete(msg.id); return; }
  if (msg.method === 'Page.screencastFrame' && msg.sessionId === page) {
    img.src = 'data:image/jpeg;base64,' + msg.params.data;
    size = { width: msg.params.metadata.deviceWidth, height: msg.params.metadata.deviceHeight };
    state.textContent = 'live';
    send('Page.screencastFrameAck', { sessionId: msg.params.sessionId }, page);
  } else if (msg.method === 'Target.targetCreated' || msg.method === 'Target.targetInfoChanged') {
    const t = msg.params.targetInfo;
    if (t.type === 'page') { pages.set(t.targetId, t); listTabs(); }
  } else if (msg.method === 'Target.targetDestroyed') {
    pages.delete(msg.params.targetId); listTabs();
    if (msg.params.targetId === pageTarget && pages.size > 0) watch([...pages.keys()].at(-1));
  }
};
ws.onclose = () => { state.textContent = 'session closed'; };
ws.onopen = async () => {
  await send('Target.setDiscoverTargets', { discover: true });
  const { result } = await send('Target.getTargets');
  for (const t of result.targetInfos) if (t.type === 'page') pages.set(t.targetId, t);
  const first = [...pages.keys()].at(-1);
  if (first) watch(first);
};
tabs.onchange = () => { send('Target.activateTarget', { targetId: tabs.value }); watch(tabs.value); };
if (interactive) {
  const at = (e) => {
    const box = img.getBoundingClientRect();
    return { x: (e.clientX - box.left) * size.width / box.width, y: (e.clientY - box.top) * size.height / box.height };
  };
  const mouse = (type, e, extra = {}) => page && send('Input.dispatchMouseEvent', { type, ...at(e), button: 'left', ...extra }, page);
  img.addEventListener('mousedown', (e) => { e.preventDefault(); img.focus(); mouse('mousePressed', e, { clickCount: 1 }); });
  img.addEventListener('mouseup', (e) => mouse('mouseReleased', e, { clickCount: 1 }));
  img.addEventListener('mousemove', (e) => mouse('mouseMoved', e, { button: 'none' }));
  img.addEventListener('wheel', (e) => { e.preventDefault(); mouse('mouseWheel', e, { button: 'none', deltaX: e.deltaX, deltaY: e.deltaY }); }, { passive: false });
  img.addEventListener('keydown', (e) => {
    if (!page) return;
    e.preventDefault();
    if (e.key.length === 1 && !e.ctrlKey && !e.metaKey) { send('Input.insertText', { text: e.key }, page); return; }
    const key = { key: e.key, code: e.code, windowsVirtualKeyCode: e.keyCode };
    send('Input.dispatchKeyEvent', { type: 'rawKeyDown', ...key }, page);
    send('Input.dispatchKeyEvent', { type: 'keyUp', ...key }, page);
  });
}
`;

function escapeJson(value: unknown): string {
  // Inside <script type="application/json">: nothing may close the element early.
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** The live view of session `id`, driving it through the door with the session's own token. */
export function livePage(id: string, token: string, interactive: boolean): string {
  return `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>havn session ${id} — live</title>
<style>
  :root { color-scheme: light dark; font: 14px system-ui, sans-serif; }
  body { margin: 0; display: grid; grid-template-rows: auto 1fr; height: 100vh; }
  header { display: flex; gap: 0.75rem; align-items: center; padding: 0.5rem 0.75rem; border-bottom: 1px solid #8884; }
  main { overflow: auto; display: grid; place-items: start center; padding: 0.5rem; }
  #screen { max-width: 100%; outline: none; box-shadow: 0 0 0 1px #8886; cursor: ${interactive ? 'pointer' : 'default'}; }
  #screen:focus-visible { box-shadow: 0 0 0 3px #4a8; }
</style>
<header>
  <strong>Session ${id}</strong>
  <label>Tab <select id="tabs"></select></label>
  <span id="state" role="status">connecting…</span>
  <span>${interactive ? 'you can click and type in the page' : 'read-only'}</span>
</header>
<main><img id="screen" alt="The session's active tab" tabindex="0"></main>
<script type="application/json" id="session">${escapeJson({ id, token, interactive })}</script>
<script type="module">${SCRIPT}</script>
</html>`;
}
