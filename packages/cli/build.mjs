#!/usr/bin/env node
// tsc does not set the executable bit; `npx havn` and the bin link need it.
import { chmodSync } from 'node:fs';
chmodSync(new URL('./dist/main.js', import.meta.url), 0o755);
