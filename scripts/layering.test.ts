import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { RENDER_ROOMS } from '../eslint.config.mjs';

// The layer rules of docs/architecture.md#layering are lint errors: a file written into a layer
// that imports a layer above it fails `eslint`, the same check `npm run lint` runs.

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const eslint = new ESLint({ cwd: root });
const written: string[] = [];

afterAll(() => {
  for (const file of written) rmSync(file, { force: true });
});

/** Writes `source` as a new file in `folder` of the repository and returns its lint messages. */
async function importErrors(folder: string, source: string): Promise<string[]> {
  const file = join(root, folder, `layering-probe-${process.pid}-${written.length}.ts`);
  written.push(file);
  writeFileSync(file, `${source}\n`);
  const [result] = await eslint.lintFiles([file]);
  rmSync(file, { force: true });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports')
    .map((m) => m.message);
}

describe('layer rules', () => {
  it('refuses a forms store file that imports routes or services', async () => {
    expect(await importErrors('packages/forms/src/store', "import '../routes/app.js';")).toEqual([
      expect.stringContaining('store/ is the bottom layer'),
    ]);
    expect(
      await importErrors('packages/forms/src/store', "import '../services/ingest.service.js';"),
    ).toEqual([expect.stringContaining('store/ is the bottom layer')]);
  });

  it('refuses a forms service that imports routes, however deep it sits', async () => {
    expect(
      await importErrors('packages/forms/src/services/delivery', "import '../../routes/app.js';"),
    ).toEqual([expect.stringContaining('services/ does not import routes/')]);
  });

  it('refuses a forms route that imports the store, even for a type', async () => {
    expect(
      await importErrors('packages/forms/src/routes', "import '../store/forms.store.js';"),
    ).toEqual([expect.stringContaining('routes/ reaches the store through services/')]);
    expect(
      await importErrors(
        'packages/forms/src/routes',
        "export type { Store } from '../store/store.js';",
      ),
    ).toEqual([expect.stringContaining('routes/ reaches the store through services/')]);
  });

  it('refuses a forms wire module that imports a layer', async () => {
    expect(
      await importErrors('packages/forms/src/wire', "import '../services/forms.service.js';"),
    ).toEqual([expect.stringContaining('wire/ holds schemas only')]);
  });

  it('refuses a render route that imports the browser layer directly', async () => {
    expect(
      await importErrors('packages/render/src/routes', "import '../browser/launch-args.js';"),
    ).toEqual([expect.stringContaining('routes/ may import only its own files and: services/')]);
  });

  it("refuses a render room's import that its allow-list does not name", async () => {
    // The CDP door judges frames and knows nothing of the session's lifecycle.
    expect(
      await importErrors('packages/render/src/sessions/door', "import '../session-manager.js';"),
    ).toEqual([expect.stringContaining('sessions/door/ may import only')]);
    expect(
      await importErrors('packages/render/src/sessions/recording', "import '../door/cdp-door.js';"),
    ).toEqual([expect.stringContaining('sessions/recording/ may import only')]);
    // A listed folder allows the files directly in it, not the rooms beneath it.
    expect(
      await importErrors('packages/render/src/sessions/live', "import '../door/cdp-door.js';"),
    ).toEqual([expect.stringContaining('sessions/live/ may import only')]);
    expect(
      await importErrors('packages/render/src/artifacts', "import '../sessions/session.js';"),
    ).toEqual([expect.stringContaining('artifacts/ may import only')]);
  });

  it('refuses a benchmark that reaches into a package by path', async () => {
    expect(await importErrors('bench', "import '../packages/render/src/config.js';")).toEqual([
      expect.stringContaining('bench/ imports a package through its exports'),
    ]);
    expect(await importErrors('bench', "import '@havn/render/testing';")).toEqual([]);
  });

  it('gives every folder of render an allow-list', () => {
    const src = join(root, 'packages/render/src');
    const folders = readdirSync(src, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => relative(src, join(entry.parentPath, entry.name)))
      .filter((folder) => !folder.split(sep).includes('test-support'));
    expect(folders.sort()).toEqual(Object.keys(RENDER_ROOMS).sort());
  });

  it('lets imports flow downward', async () => {
    expect(
      await importErrors('packages/forms/src/services', "import '../store/canonical-json.js';"),
    ).toEqual([]);
    expect(
      await importErrors('packages/render/src/services', "import '../browser/launch-args.js';"),
    ).toEqual([]);
    expect(
      await importErrors('packages/render/src/sessions/live', "import '../session-manager.js';"),
    ).toEqual([]);
    expect(
      await importErrors('packages/render/src/sessions', "import './door/cdp-door.js';"),
    ).toEqual([]);
    expect(
      await importErrors('packages/forms/src/routes', "import '../services/forms.service.js';"),
    ).toEqual([]);
    expect(await importErrors('packages/forms/src/routes', "import '../wire/forms.js';")).toEqual(
      [],
    );
  });
});
