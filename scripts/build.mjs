#!/usr/bin/env node
// `npm run build`: one command for every package. TypeScript first (tsc -b is incremental, so an
// unchanged tree builds in about a second), then any package's own asset build (`build.mjs` at the
// package root, e.g. the browser bundles of forms-web), each of which must be incremental too.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function step(args) {
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

step([join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'tsconfig.build.json']);
const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const ws of workspaces) {
  const script = join(root, ws, 'build.mjs');
  if (existsSync(script)) step([script]);
}
