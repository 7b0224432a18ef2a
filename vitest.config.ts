import { defineConfig } from 'vitest/config';

const forms = 'packages/forms/src/**/*.test.ts';
const renderCluster = 'packages/render/src/**/*.cluster.test.ts';
const postgres = 'test-support/postgres.global-setup.ts';
const otel = 'packages/cli/src/commands/otel/**/*.test.ts';
const containers = 'scripts/containers.test.ts';

export default defineConfig({
  test: {
    // Real servers and real Chromium: give setup and tests room on a loaded two-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits for what a loaded machine does later (a webhook worker's delivery, a
    // debounced preview); its own default of 1 s made such waits fail under load.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', './scripts/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'havn',
          include: ['packages/*/src/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: [forms, renderCluster, otel, containers, '**/node_modules/**'],
        },
      },
      // The images under podman-compose, alone and last: each container podman starts or stops
      // adds or removes a network interface on this machine, and Chromium then fails whatever it
      // was connecting at that moment with net::ERR_NETWORK_CHANGED (it has no switch to ignore
      // it), so no browser test may run beside them.
      {
        extends: true,
        test: { name: 'containers', include: [containers], sequence: { groupOrder: 1 } },
      },
      // The otel tests run twice, once on each telemetry backend (docs/cli.md#configure): an
      // Application Insights app and a Log Analytics workspace, both served by the local fake.
      ...(['app', 'workspace'] as const).map((backend) => ({
        extends: true as const,
        test: {
          name: `otel-${backend}`,
          include: [otel],
          env: { HAVN_TEST_TELEMETRY: backend },
        },
      })),
      // The forms tests run twice, once on each store (docs/forms.md#postgresql): on SQLite, and
      // on a throwaway PostgreSQL cluster this project's globalSetup starts and stops.
      // `*.postgres.test.ts`: several instances on one database, which SQLite does not have.
      {
        extends: true,
        test: {
          name: 'forms-sqlite',
          include: [forms],
          exclude: ['packages/forms/src/**/*.postgres.test.ts', '**/node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'forms-postgres',
          include: [forms],
          globalSetup: [postgres],
        },
      },
      // Render on several instances (docs/render.md#several-instances): PostgreSQL
      // holds the artifact descriptors and the session registry.
      {
        extends: true,
        test: { name: 'render-cluster', include: [renderCluster], globalSetup: [postgres] },
      },
    ],
  },
});
