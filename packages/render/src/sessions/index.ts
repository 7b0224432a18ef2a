// Browser sessions, the CDP door and recording (spec 1 §2.4, §3.1, §4.5-4.11).
export { sessionRoutes, type SessionRoutesOptions } from './sessions.routes.js';
export {
  SessionManager,
  type SessionManagerDeps,
  type SessionProfile,
  type CreateSessionInput,
} from './session-manager.js';
export { sessionConfigShape, sessionConfigFromEnv, type SessionConfig } from './session-config.js';
export { sessionsExtension, type SessionsExtensionOverrides } from './sessions-extension.js';
