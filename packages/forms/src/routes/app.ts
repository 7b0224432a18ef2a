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
import type { DeliveryWorker } from '../services/delivery/delivery-worker.js';
import type { Principal } from '../services/auth.service.js';
import type { IngestLimiter } from '../services/rate-limiter.js';
import type { VapidKeys } from '../services/vapid-keys.js';
import type { WebhookLogService } from '../services/webhook-log.service.js';
import type { GateForm } from '../store/forms.store.js';
import type { Store } from '../store/store.js';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  Logger,
  TypeBoxTypeProvider
>;

/** What every route module gets. */
export interface RouteDeps {
  config: FormsConfig;
  store: Store;
  worker: DeliveryWorker;
  webhookLog: WebhookLogService;
  vapid: VapidKeys;
  limiter: IngestLimiter;
  newId: (prefix: string) => string;
  now: () => number;
  startedAt: number;
  version: string;
}

declare module 'fastify' {
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
