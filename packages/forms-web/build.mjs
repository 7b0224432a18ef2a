#!/usr/bin/env node
// Builds dist/ in the WEB_DIR layout (docs/definition-format.md, "Where the web app lives"):
// runtime.js, index.html + app.js + app.css (the inbox), f/index.html (the hosted page), sw.js,
// manifest.webmanifest and icons. Run by scripts/build.mjs after tsc; skips all work when no
// source changed since the last build (a stamp in dist/ records the newest input time).
import { build } from 'esbuild';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  copyFileSync,
  rmSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { pngIcon } from './icons.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, 'src');
const dist = join(here, 'dist');
const stampFile = join(dist, '.build-stamp');

function newest(dir) {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

// docs/forms-web.md#the-definition-editor: the editor links to the format guide, served beside
// the inbox as text. A tree without docs/ (a container's build context may leave it out) builds
// without it.
const guide = join(here, '../../docs/definition-format.md');
const haveGuide = existsSync(guide);

const inputs = Math.max(
  newest(src),
  haveGuide ? statSync(guide).mtimeMs : 0,
  // The show-if evaluator the runtime bundles from @havn/forms (docs/definition-format.md).
  newest(join(here, '../forms/src/logic')),
  statSync(fileURLToPath(import.meta.url)).mtimeMs,
  statSync(join(here, 'icons.mjs')).mtimeMs,
);
let stamp = 0;
try {
  stamp = Number(readFileSync(stampFile, 'utf8'));
} catch {
  // first build
}
if (stamp >= inputs && process.argv[2] !== '--force') process.exit(0);

mkdirSync(join(dist, 'f'), { recursive: true });
// Chunk names carry a content hash: drop the previous build's so old chunks do not pile up.
rmSync(join(dist, 'chunks'), { recursive: true, force: true });
mkdirSync(join(dist, 'icons'), { recursive: true });
const common = {
  bundle: true,
  minify: true,
  target: 'es2020',
  legalComments: 'none',
  logLevel: 'warning',
  tsconfig: join(here, 'tsconfig.json'),
};
await Promise.all([
  build({
    ...common,
    entryPoints: [join(src, 'runtime/index.ts')],
    outfile: join(dist, 'runtime.js'),
    format: 'iife',
  }),
  // docs/forms-web.md#languages: each shipped locale's texts in a file of its own, loaded by the
  // runtime only for a form in that language.
  build({
    ...common,
    entryPoints: readdirSync(join(src, 'runtime/locales'))
      .filter((f) => f !== 'register.ts' && !f.endsWith('.test.ts'))
      .map((f) => join(src, 'runtime/locales', f)),
    outdir: join(dist, 'locales'),
    format: 'iife',
  }),
  // The live preview's stand-in for the network, a file so the inbox runs no inline script.
  build({
    ...common,
    entryPoints: [join(src, 'preview/shim.ts')],
    outfile: join(dist, 'preview-shim.js'),
    format: 'iife',
  }),
  build({
    ...common,
    entryPoints: [join(src, 'sw/sw.ts')],
    outfile: join(dist, 'sw.js'),
    format: 'iife',
  }),
  // The inbox is split: app.js is the first load; the management views (docs/forms-web.md,
  // "Managing forms") are chunks loaded only when opened, so the first load stays small.
  build({
    ...common,
    entryPoints: { app: join(src, 'inbox/main.tsx') },
    outdir: dist,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    jsx: 'automatic',
    jsxImportSource: 'preact',
  }),
]);
copyFileSync(join(src, 'inbox/index.html'), join(dist, 'index.html'));
copyFileSync(join(src, 'inbox/app.css'), join(dist, 'app.css'));
copyFileSync(join(src, 'hosted/index.html'), join(dist, 'f/index.html'));
copyFileSync(join(src, 'inbox/manifest.webmanifest'), join(dist, 'manifest.webmanifest'));
if (haveGuide) {
  mkdirSync(join(dist, 'guide'), { recursive: true });
  copyFileSync(guide, join(dist, 'guide/definition-format.md'));
}
for (const size of [192, 512]) writeFileSync(join(dist, `icons/icon-${size}.png`), pngIcon(size));

// Text assets get .br and .gz twins, compressed once here at the highest levels, so the forms
// server (@fastify/static with preCompressed) sends them compressed at no per-request cost.
const COMPRESSIBLE = /\.(js|css|html|webmanifest|md)$/;
function compressTree(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) compressTree(p);
    else if (COMPRESSIBLE.test(entry.name)) {
      const bytes = readFileSync(p);
      writeFileSync(`${p}.gz`, gzipSync(bytes, { level: 9 }));
      writeFileSync(
        `${p}.br`,
        brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
      );
    }
  }
}
compressTree(dist);
writeFileSync(stampFile, String(inputs));
