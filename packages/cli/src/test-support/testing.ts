// What tools outside the CLI package (bench/) may use of its test-support, as `@havn/cli/testing`.
export { FAKE_TOKEN, FakeAppInsights, table } from './fake-app-insights.js';
export { startFormsService } from './forms-service.js';
export { HAVN_BIN, havn, signedInConfigDir } from './run-havn.js';
export { traceFixture } from './trace-fixture.js';
