// What tools outside the render package (bench/) may use of it, as `@havn/render/testing`: the
// pieces a benchmark composes in process, and the test-support that starts instances. Anything
// else under src/ is private; bench/ may not reach it by path (eslint.config.mjs).
export { browserLaunchArgs } from '../browser/launch-args.js';
export { markdownExpression, pageCallExpression } from '../browser/extract.js';
export { Authenticator } from '../auth.js';
export { composeServer } from '../compose.js';
export { loadConfig } from '../config.js';
export { acrossSwap } from '../browser/storage-state.js';
export { builtInProfile } from '../profiles.js';
export { LOOPBACK_ONLY } from '../public-hosts.js';
export { CdpDoor } from '../sessions/door/cdp-door.js';
export type { FrameJudge } from '../sessions/door/cdp-frame-policy.js';
export { sessionsExtension } from '../sessions/sessions-extension.js';
export { startBalancer } from './nginx.js';
export { startRenderInstance, type RenderInstance } from './render-instances.js';
export { TEST_TOKEN } from './service.js';
