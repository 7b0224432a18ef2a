import type {
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from '@havn/shared';
import type { FormsConfig } from '../config.js';
import type { AuthService, Principal } from '../services/auth.service.js';
import type { ExportService } from '../services/export.service.js';
import type { FormsService } from '../services/forms.service.js';
import type { OrgsService } from '../services/orgs.service.js';
import type { GateForm, PublicFormsService } from '../services/public-forms.service.js';
import type { PushSubscriptionsService } from '../services/push-subscriptions.service.js';
import type { IngestLimiter } from '../services/rate-limiter.js';
import type { SetupService } from '../services/setup.service.js';
import type { SpamService } from '../services/spam.service.js';
import type { SubmissionsService } from '../services/submissions.service.js';
import type { TokensService } from '../services/tokens.service.js';
import type { FileLinks } from '../services/uploads/file-links.js';
import type { VapidKeys } from '../services/vapid-keys.js';
import type { WebhookLogService } from '../services/webhook-log.service.js';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  Logger,
  TypeBoxTypeProvider
>;

/**
 * What every route module gets: the services, never the store (routes are thin transport;
 * docs/architecture.md#layering).
 */
export interface RouteDeps {
  config: FormsConfig;
  auth: AuthService;
  orgs: OrgsService;
  tokens: TokensService;
  forms: FormsService;
  publicForms: PublicFormsService;
  submissions: SubmissionsService;
  exports: ExportService;
  push: PushSubscriptionsService;
  webhookLog: WebhookLogService;
  /** Signed file links (docs/forms.md#file-uploads). */
  fileLinks: FileLinks;
  spam: SpamService;
  setup: SetupService;
  vapid: VapidKeys;
  limiter: IngestLimiter;
  now: () => number;
  startedAt: number;
  version: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * While no organisation exists: a new one-time setup link under `base` (main.ts prints it
     * once; docs/forms.md#first-run-and-setup-links). Undefined once one exists.
     */
    firstRunSetupLink(base: string): Promise<string | undefined>;
  }
  interface FastifyContextConfig {
    /** The route takes a JSON body as its bytes only (`request.rawBody`), not parsed here. */
    unparsedJson?: boolean;
  }
  interface FastifyRequest {
    /** The request body bytes exactly as received (JSON bodies only). */
    rawBody: Buffer | null;
    principal: Principal | null;
    /** The form a public request addresses, found by the origin gate. */
    publicForm: GateForm | null;
  }
}

/** The absolute base URL of this server: PUBLIC_BASE_URL, else the request's own host. */
export function baseUrl(config: FormsConfig, request: FastifyRequest): string {
  return config.publicBaseUrl ?? `${request.protocol}://${request.host}`;
}

/** The principal an admin-route hook established. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('admin route without the auth hook');
  return request.principal;
}
