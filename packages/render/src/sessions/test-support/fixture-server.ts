import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// Pages the sessions tests drive: a static page, an animated one (so the recorder gets a steady
// stream of frames), a download (`/download?name=`), a redirect (`/redirect?to=`) and a page
// with a file input.

const PAGES: Readonly<Record<string, string>> = {
  '/': '<!doctype html><title>fixture</title><h1 id="hello">hello from the fixture</h1>',
  '/anim':
    '<!doctype html><title>anim</title><style>body{margin:0}#box{width:120px;height:120px;background:red}</style>' +
    '<div id="box"></div><p id="n">0</p><script>let n=0;(function tick(){n++;' +
    "document.getElementById('n').textContent=String(n);" +
    "document.getElementById('box').style.transform='translateX('+(n%300)+'px)';" +
    'requestAnimationFrame(tick)})()</script>',
  '/upload':
    '<!doctype html><title>upload</title><input type="file" id="file">' +
    '<p id="got"></p><script>document.getElementById(\'file\').onchange=async(e)=>{' +
    "const f=e.target.files[0];document.getElementById('got').textContent=f.name+':'+(await f.text())}</script>",
  '/type':
    '<!doctype html><title>type</title><style>body{margin:0}</style>' +
    '<input id="i" style="position:absolute;left:0;top:0;width:400px;height:100px;font-size:40px">',
  '/button':
    '<!doctype html><title>button</title><style>body{margin:0}</style>' +
    '<button id="b" style="position:absolute;left:0;top:0;width:400px;height:300px" ' +
    'onclick="this.textContent=\'clicked\'">click me</button>',
  // A page that downloads a file by itself once loaded, with nobody driving it.
  '/self-download':
    "<!doctype html><title>self</title><script>addEventListener('load',()=>{location.href='/download?name=self.csv'})</script>",
  // What the page sees of its browser, reported to /report before `load` (an image holds it).
  '/probe':
    '<!doctype html><meta name="viewport" content="width=device-width"><title>probe</title><script>' +
    'const seen={ua:navigator.userAgent,width:innerWidth,height:innerHeight,dpr:devicePixelRatio,' +
    'touch:navigator.maxTouchPoints>0,mobile:navigator.userAgentData?navigator.userAgentData.mobile:null,' +
    'language:navigator.language,timezone:Intl.DateTimeFormat().resolvedOptions().timeZone,' +
    "dark:matchMedia('(prefers-color-scheme: dark)').matches};" +
    "document.write('<img src=\"/report?tag='+encodeURIComponent(location.search.slice(1))+'&seen='+encodeURIComponent(JSON.stringify(seen))+'\">')" +
    '</script>',
};

export interface TestServer {
  /** What /probe pages reported, by the tag in their query string. */
  reports: Map<string, Record<string, unknown>>;
  /** http://localhost:<port> (ALLOWED_HOSTS lets `localhost` through in tests). */
  url: string;
  port: number;
  hits: number;
  close(): Promise<void>;
}

export async function startFixtureServer(): Promise<TestServer> {
  const state = { hits: 0 };
  const reports = new Map<string, Record<string, unknown>>();
  const server: Server = createServer((req, res) => {
    state.hits++;
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    if (path === '/download') {
      const name = url.searchParams.get('name') ?? 'file.txt';
      const size = Number(url.searchParams.get('size') ?? 0);
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': `attachment; filename="${name}"`,
      });
      if (size === 0) {
        res.end(`downloaded ${name}`);
        return;
      }
      if (url.searchParams.get('at') === 'once') {
        res.end(Buffer.alloc(size, 0x61));
        return;
      }
      // A large file trickles out, 64 KiB every 20 ms, as a real one would over a network.
      let sent = 0;
      const timer = setInterval(() => {
        const part = Math.min(64 * 1024, size - sent);
        sent += part;
        if (!res.write(Buffer.alloc(part, 0x61)) && sent < size) return;
        if (sent >= size) {
          clearInterval(timer);
          res.end();
        }
      }, 20);
      res.on('close', () => {
        clearInterval(timer);
      });
      return;
    }
    if (path === '/report') {
      const seen = JSON.parse(url.searchParams.get('seen') ?? '{}') as Record<string, unknown>;
      reports.set(url.searchParams.get('tag') ?? '', seen);
      res.writeHead(204).end();
      return;
    }
    if (path === '/redirect') {
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
      return;
    }
    if (path === '/echo') {
      // What the browser sent, so tests can see headers and cookies applied.
      const seen = { xTest: req.headers['x-test'] ?? null, cookie: req.headers.cookie ?? null };
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<pre id="echo">${JSON.stringify(seen)}</pre>`);
      return;
    }
    const page = PAGES[path];
    if (page === undefined) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    port,
    reports,
    get hits() {
      return state.hits;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
