#!/usr/bin/env node
// One service's production dependencies, copied out of a full `npm ci` tree (docs/deploy.md#the-images):
//
//   node runtime-deps.mjs <from> <to> <workspace>...
//
// reads <from>/package-lock.json, follows the dependencies, optional dependencies and required
// peers of the named workspaces (never their devDependencies) the way Node resolves them, and
// copies exactly those packages from <from> to the same paths under <to>: <to>/node_modules, and
// <to>/packages/<name>/node_modules for a version a workspace needs apart from the hoisted one;
// workspaces as links to ../../packages/<name>, as npm lays them out.
//
// Why not `npm ci --omit=dev --workspace=…`: npm installs the devDependencies of the workspaces it
// is asked for (the forms image got playwright-core through @havn/forms' dev dependencies). The
// copy also keeps the addon better-sqlite3 compiled in the full tree, with no second compile.
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const [from, to, ...workspaces] = process.argv.slice(2);
if (!from || !to || workspaces.length === 0) {
  console.error('usage: runtime-deps.mjs <from> <to> <workspace>...');
  process.exit(2);
}
/** @type {{ packages: Record<string, { link?: boolean, resolved?: string, dependencies?: Record<string, string>, optionalDependencies?: Record<string, string>, peerDependencies?: Record<string, string>, peerDependenciesMeta?: Record<string, { optional?: boolean }> }> }} */
const lock = JSON.parse(readFileSync(join(from, 'package-lock.json'), 'utf8'));
const entries = lock.packages;

/** Where `name` resolves from the package at `path`: its own node_modules, then each parent's. */
function resolve(path, name) {
  for (let dir = path; ;) {
    const key = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (entries[key]) return key;
    if (dir === '') return undefined;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut === -1 ? '' : dir.slice(0, cut);
  }
}

const needed = new Set();
const links = new Map();
const pending = workspaces.map((w) => {
  const key = resolve('', w);
  if (!key || !entries[key]?.link) throw new Error(`${w} is not a workspace of ${from}`);
  return key;
});
while (pending.length > 0) {
  let key = /** @type {string} */ (pending.pop());
  if (needed.has(key)) continue;
  needed.add(key);
  const entry = entries[key];
  if (entry?.link) {
    links.set(key, /** @type {string} */ (entry.resolved));
    key = /** @type {string} */ (entry.resolved);
  }
  const pkg = entries[key] ?? {};
  const optional = pkg.optionalDependencies ?? {};
  const peers = Object.keys(pkg.peerDependencies ?? {}).filter(
    (p) => !pkg.peerDependenciesMeta?.[p]?.optional,
  );
  for (const name of [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(optional), ...peers]) {
    const found = resolve(key, name);
    if (found) pending.push(found);
    else if (!(name in optional)) throw new Error(`${key} needs ${name}, which the lockfile lacks`);
  }
}

for (const key of [...needed].sort()) {
  const target = join(to, key);
  const link = links.get(key);
  if (link) {
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(relative(dirname(target), join(to, link)), target);
    continue;
  }
  // Each needed package nested in this one is copied on its own turn.
  const nested = join(from, key, 'node_modules');
  cpSync(join(from, key), target, { recursive: true, filter: (src) => src !== nested });
}
console.log(`${workspaces.join(' ')}: ${needed.size - links.size} packages`);
