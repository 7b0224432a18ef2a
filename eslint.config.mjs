// One lint for the whole repository: type-aware typescript-eslint, Prettier owns formatting.
import path from 'node:path';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

// Layering (docs/architecture.md#layering): a part never reaches into another part's sources.
const crossPackage = {
  group: ['@havn/*/src/*', '@havn/*/dist/*', '../../*/src/*', '../../../*/src/*'],
  message: 'Import another package through its exports, never its files.',
};

// Layers inside a package (docs/architecture.md#layering): a file may not import from the layers
// above it. Matched on the import text, relative imports only (each layer is a folder of one
// package), so `../routes/x.js` from store/ is caught however deep the importing file sits.
const layerAbove = (folders, rule) => ({
  regex: `^\\.{1,2}/(?:.*/)?(?:${folders.join('|')})(?:/|$)`,
  message: rule,
});
const playwright = { name: 'playwright-core', message: 'Only src/browser/ imports Playwright.' };
const restrictedImports = (patterns, paths = []) => [
  'error',
  { patterns: [crossPackage, ...patterns], paths },
];
const notTests = ['**/*.test.ts', '**/test-support/**'];

// Render's rooms say what they may import, as allow-lists (as Playwright's DEPS.list files do):
// a folder of `src/` lists the folders (`name/`: the files directly in it) and top-level files it
// may import besides its own; any other relative import is refused. The top of `src/` (server,
// compose, config, main) is the composition root and is not listed. docs/architecture.md#layering
// says why each edge exists.
export const RENDER_ROOMS = {
  artifacts: ['config.js', 'errors.js'],
  browser: ['capture-limits.js', 'profiles.js', 'errors.js'],
  cluster: ['errors.js'],
  netguard: ['errors.js'],
  pdf: ['errors.js'],
  schemas: ['pdf/'],
  services: [
    'artifacts/',
    'browser/',
    'netguard/',
    'pdf/',
    'schemas/',
    'capture-limits.js',
    'profiles.js',
    'errors.js',
  ],
  // Routes are thin transport: the browser only through services/.
  routes: [
    'services/',
    'artifacts/',
    'cluster/',
    'schemas/',
    'profiles.js',
    'public-hosts.js',
    'server-context.js',
    'errors.js',
  ],
  // Sessions are a vertical slice over the same lower rooms as services/, with rooms of its own.
  sessions: [
    'artifacts/',
    'browser/',
    'cluster/',
    'netguard/',
    'schemas/',
    'sessions/door/',
    'sessions/downloads/',
    'sessions/live/',
    'sessions/recording/',
    // A session saves, and starts from, the browser states renders start from: one keeper of them.
    'services/browser-states.js',
    'auth.js',
    'capture-limits.js',
    'profiles.js',
    'public-hosts.js',
    'server-context.js',
    'errors.js',
  ],
  // The CDP door judges frames; it knows nothing of the session's lifecycle.
  'sessions/door': [
    'sessions/downloads/',
    'auth.js',
    'capture-limits.js',
    'public-hosts.js',
    'errors.js',
  ],
  'sessions/downloads': ['errors.js'],
  'sessions/recording': ['artifacts/', 'errors.js'],
  'sessions/live': ['sessions/', 'schemas/', 'auth.js', 'public-hosts.js', 'errors.js'],
};
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const renderRooms = Object.entries(RENDER_ROOMS).map(([room, allowed]) => {
  const importText = (target) => {
    const relative = path.posix.relative(room, target.replace(/\/$/, '')) || '.';
    const text = relative.startsWith('.') ? relative : `./${relative}`;
    return target.endsWith('/') ? `${escape(text)}/[^/]+` : escape(text);
  };
  const allowedTexts = ['\\./[^/]+', ...allowed.map(importText)];
  const refused = {
    regex: `^(?!(?:${allowedTexts.join('|')})$)\\.{1,2}/`,
    message: `${room}/ may import only its own files and: ${allowed.join(', ')} (eslint.config.mjs, RENDER_ROOMS).`,
  };
  return {
    files: [`packages/render/src/${room}/*.ts`],
    ignores: notTests,
    rules: {
      'no-restricted-imports': restrictedImports([refused], room === 'browser' ? [] : [playwright]),
    },
  };
});

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'data/**',
      'coverage/**',
      'packages/forms-web/public/**',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-imports': ['error', { patterns: [crossPackage] }],
    },
  },
  {
    // Only the render service's browser layer drives Playwright (docs/architecture.md).
    files: ['packages/render/src/**/*.ts'],
    ignores: [
      'packages/render/src/browser/**',
      'packages/render/src/**/*.test.ts',
      'packages/render/src/test-support/**',
    ],
    rules: {
      'no-restricted-imports': restrictedImports([], [playwright]),
    },
  },
  ...renderRooms,
  {
    // Benchmarks use a package as its tests' neighbours would: through its exports
    // (`@havn/render/testing`, `@havn/cli/testing` name what a benchmark may compose), never by path.
    files: ['bench/**/*.ts'],
    rules: {
      'no-restricted-imports': restrictedImports([
        {
          regex: '^(?:\\.\\./)+packages/',
          message:
            'bench/ imports a package through its exports (@havn/<name>/testing), never its files.',
        },
      ]),
    },
  },
  {
    files: ['packages/forms/src/store/**/*.ts'],
    ignores: notTests,
    rules: {
      'no-restricted-imports': restrictedImports([
        layerAbove(
          ['services', 'routes'],
          'store/ is the bottom layer: it imports no services/ or routes/.',
        ),
      ]),
    },
  },
  {
    files: ['packages/forms/src/services/**/*.ts'],
    ignores: notTests,
    rules: {
      'no-restricted-imports': restrictedImports([
        layerAbove(['routes'], 'services/ does not import routes/; routes call services.'),
      ]),
    },
  },
  {
    // Forms routes are thin transport over services/; the store (and its types) stays below them.
    files: ['packages/forms/src/routes/**/*.ts'],
    ignores: notTests,
    rules: {
      'no-restricted-imports': restrictedImports([
        layerAbove(['store'], 'routes/ reaches the store through services/, never store/.'),
      ]),
    },
  },
  {
    // The forms wire types are what crosses HTTP: schemas only, shared by routes and the inbox.
    files: ['packages/forms/src/wire/**/*.ts'],
    ignores: notTests,
    rules: {
      'no-restricted-imports': restrictedImports([
        layerAbove(
          ['routes', 'services', 'store'],
          'wire/ holds schemas only: it imports no routes/, services/ or store/.',
        ),
      ]),
    },
  },
  {
    files: ['**/*.test.ts', '**/test-support/**'],
    rules: {
      // Test bodies assert on parsed JSON; non-null assertions read better than guards there.
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly' } },
  },
  prettier,
);
