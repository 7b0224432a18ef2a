#!/usr/bin/env node
// Runs after tsc (scripts/build.mjs). Two steps:
// 1. Bundle src/main.ts into dist/main.js (+ lazily loaded chunks in dist/chunks/) with esbuild.
//    Node 20 pays about a millisecond per ES module file it loads; one bundle roughly halves the
//    start-up of `havn otel errors` (bench/cli.ts). Dynamic imports stay separate chunks, so
//    commander (help and unusual input only), MSAL and `az` are still loaded only when needed;
//    MSAL stays outside the bundle. esbuild is in the lockfile (through tsx); if it cannot be
//    loaded, tsc's unbundled dist/main.js is kept, which works the same, only starts slower.
// 2. tsc does not set the executable bit; `npx havn` and the bin link need it.
// 3. dist/help.json: every command's help, rendered by commander from tsc's dist/program.js, so
//    `havn … --help` prints it without loading commander (src/help-texts.ts).
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.warn('@havn/cli: esbuild not found; keeping the unbundled dist/main.js');
}
if (esbuild) {
  rmSync(here('./dist/chunks'), { recursive: true, force: true });
  await esbuild.build({
    entryPoints: [here('./src/main.ts')],
    outdir: here('./dist'),
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['@azure/msal-node'],
    // commander is CommonJS; its require() calls of node: built-ins need a real require in ESM.
    banner: {
      js: "import { createRequire as __havnCreateRequire } from 'node:module'; const require = __havnCreateRequire(import.meta.url);",
    },
    allowOverwrite: true,
    logLevel: 'warning',
  });
}
chmodSync(here('./dist/main.js'), 0o755);

const { buildProgram } = await import(here('./dist/program.js'));
const { helpTexts } = await import(here('./dist/help-texts.js'));
const texts = helpTexts((capture) => {
  const sink = { write: capture };
  // Help reads nothing of the context but where it writes.
  return buildProgram({ stdout: sink, stderr: sink, serviceTokens: {} });
});
writeFileSync(here('./dist/help.json'), `${JSON.stringify(texts)}\n`);
