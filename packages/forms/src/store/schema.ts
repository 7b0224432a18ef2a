import type { ColumnType } from 'kysely';
import type { DeliveryAttemptTable, DeliveryTable } from './outbox/tables.js';

export type { DeliveryAttemptTable, DeliveryTable } from './outbox/tables.js';

// The tables as Kysely sees them (camelCase here, snake_case in the database through
// CamelCasePlugin). Booleans are integers 0/1 and times are ISO-8601 text or epoch milliseconds,
// so the same queries run on SQLite and PostgreSQL.

export interface OrgTable {
  slug: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

export interface OrgTokenTable {
  id: string;
  orgSlug: string;
  label: string;
  /** hex(sha256(secret)); the secret itself is never stored (docs/forms.md#authentication). */
  tokenHash: string;
  createdAt: string;
}

export interface FormTable {
  orgSlug: string;
  id: string;
  name: string;
  description: string;
  allowedOrigins: string; // JSON array
  webhooks: string; // JSON array of { url, secret }
  redirectUrl: string | null;
  retentionDays: number | null;
  /** JSON array of the addresses email notices go to (docs/forms.md#email-notices). */
  notify: string;
  /** docs/forms.md#spam: 'honeypot' (the default) or 'pow'. */
  spamProtection: SpamProtection;
  definitionVersion: number | null;
  createdAt: string;
  updatedAt: string;
}

/** How a form tells spam from people (docs/forms.md#spam). */
export type SpamProtection = 'honeypot' | 'pow';

export interface DefinitionTable {
  orgSlug: string;
  formId: string;
  version: number;
  definition: string; // JSON
  createdAt: string;
}

export interface SubmissionTable {
  id: string;
  orgSlug: string;
  formId: string;
  receivedAt: string;
  read: number;
  spam: number;
  preview: string;
  answers: string; // JSON
  submitFields: string | null; // JSON
  origin: string | null;
  referer: string | null;
  userAgent: string | null;
  ip: string;
  body: Uint8Array;
  definitionVersion: number | null;
  /**
   * JSON array of the keys of the submission's stored files (docs/forms.md#file-uploads), so
   * erasure finds their bytes without reading every answer; null when it has none.
   */
  files: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface PushSubscriptionTable {
  id: string;
  orgSlug: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  expirationTime: number | null;
  createdAt: string;
}

export interface SettingTable {
  key: string;
  value: string;
}

/** One fixed minute's count of ingest requests per client IP and form, shared by instances. */
export interface RateLimitTable {
  key: string;
  /** Epoch ms of the minute's start. */
  windowStart: number;
  count: number;
}

/** A proof-of-work challenge whose solution was used, kept until it expires (replay refused). */
export interface UsedChallengeTable {
  /** The challenge's HMAC signature (hex): unique to its random nonce and salt. */
  signature: string;
  /** Random per claim: the claim whose value is stored is the one that won. */
  claim: string;
  /** Epoch ms the challenge expires; swept after. */
  expiresAt: ColumnType<number | string, number, number>;
}

/** A one-time setup code (docs/forms.md#first-run-and-setup-links), stored as its hash only. */
export interface SetupCodeTable {
  codeHash: string;
  /** 1: printed at a start with no organisation (void once one exists); 0: an admin's link. */
  firstRun: number;
  /** Epoch ms after which the code is refused and swept. */
  expiresAt: ColumnType<number | string, number, number>;
}

export interface Database {
  orgs: OrgTable;
  orgTokens: OrgTokenTable;
  forms: FormTable;
  definitions: DefinitionTable;
  submissions: SubmissionTable;
  deliveries: DeliveryTable;
  deliveryAttempts: DeliveryAttemptTable;
  pushSubscriptions: PushSubscriptionTable;
  settings: SettingTable;
  rateLimits: RateLimitTable;
  usedChallenges: UsedChallengeTable;
  setupCodes: SetupCodeTable;
}
