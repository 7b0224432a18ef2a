#!/usr/bin/env node
// `npm run bench [name...]`: runs bench/<name>.ts (all of them when none is named), one at a time
// so that they do not compete for the two cores.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = dirname(fileURLToPath(import.meta.url));
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !all.includes(w));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; have: ${all.join(', ') || 'none'}`);
  process.exit(2);
}
const chosen = wanted.length > 0 ? wanted : all;
if (chosen.length === 0) console.log('no benchmarks yet: add bench/<name>.ts');
let failed = 0;
for (const name of chosen) {
  console.log(`\n=== bench ${name}`);
  const tsx = join(dir, '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const r = spawnSync(process.execPath, [tsx, join(dir, `${name}.ts`)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
