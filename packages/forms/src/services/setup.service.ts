import { timingSafeEqual } from 'node:crypto';
import { HttpError, randomToken, sha256Hex } from '@havn/shared';
import type { OrgStore } from '../store/orgs.store.js';
import type { SetupCodeStore } from '../store/setup-codes.store.js';
import { requireAdmin, type Principal } from './auth.service.js';
import type { OrgsService, Org } from './orgs.service.js';
import type { TokensService } from './tokens.service.js';
import { formsErrors } from '../errors.js';

/** How long a setup code works (docs/forms.md#first-run-and-setup-links). */
export const SETUP_CODE_TTL_MS = 3_600_000;
/** Wrong codes one client address may try in a window before it is refused with 429. */
export const SETUP_FAILURES_PER_WINDOW = 10;
const WINDOW_MS = 10 * 60_000;
/** Addresses tracked at most; past it the oldest windows go first (memory stays bounded). */
const MAX_TRACKED = 10_000;

/** A setup link: the inbox route that carries the code in its fragment, which no server logs. */
export function setupUrl(base: string, code: string): string {
  return `${base.replace(/\/+$/, '')}/#/setup/${code}`;
}

/** The answer of a used setup code: the new organisation and the token that signs in to it. */
export interface SetupResult {
  org: Org;
  token: string;
}

/**
 * First run without curl (docs/forms.md#first-run-and-setup-links): a one-time code creates an
 * organisation and mints its first token. Codes are random (24 bytes), kept only as their hashes,
 * compared in constant time, used once, and void after an hour; a first-run code is void as soon
 * as any organisation exists. Wrong codes are counted per client address and refused with 429
 * past SETUP_FAILURES_PER_WINDOW in ten minutes.
 */
export class SetupService {
  private readonly failures = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly deps: {
      codes: SetupCodeStore;
      orgStore: OrgStore;
      orgs: OrgsService;
      tokens: TokensService;
      now: () => number;
    },
  ) {}

  /** A first-run code while no organisation exists; undefined once one does. */
  async firstRunCode(): Promise<string | undefined> {
    if (await this.deps.orgStore.any()) return undefined;
    return this.newCode(true);
  }

  /** An admin's setup link for a new organisation. */
  async link(principal: Principal, base: string): Promise<{ url: string; expiresAt: string }> {
    requireAdmin(principal, 'make setup links');
    const code = await this.newCode(false);
    return {
      url: setupUrl(base, code),
      expiresAt: new Date(this.deps.now() + SETUP_CODE_TTL_MS).toISOString(),
    };
  }

  /**
   * Uses `code` to create the organisation and mint its first token. 429 while the address has
   * too many wrong codes; 404 when no code could work (setup is closed); 403 for a wrong code;
   * 409 for a taken slug (the code stays usable).
   */
  async redeem(
    client: string,
    input: { code: string; slug: string; name: string },
  ): Promise<SetupResult> {
    this.checkLimit(client);
    const { codes, orgStore } = this.deps;
    let live = await codes.live(this.deps.now());
    if (live.some((c) => c.firstRun) && (await orgStore.any())) {
      await codes.dropFirstRun();
      live = live.filter((c) => !c.firstRun);
    }
    if (live.length === 0) {
      this.fail(client);
      throw formsErrors.error('SETUP_CLOSED');
    }
    const presented = Buffer.from(sha256Hex(input.code), 'hex');
    // Every live code is compared, in constant time, whatever matched before it.
    let match: string | undefined;
    for (const c of live) {
      if (timingSafeEqual(presented, Buffer.from(c.codeHash, 'hex'))) match = c.codeHash;
    }
    if (match === undefined) {
      this.fail(client);
      throw formsErrors.error('SETUP_LINK_INVALID');
    }
    if (await orgStore.get(input.slug)) {
      throw formsErrors.error('ORG_SLUG_TAKEN', { slug: input.slug });
    }
    if (!(await codes.take(match))) {
      throw formsErrors.error('SETUP_LINK_INVALID');
    }
    let org: Org;
    try {
      org = await this.deps.orgs.create({ kind: 'admin' }, input);
    } catch (err) {
      // Taken meanwhile: the code was not spent on anything, so it stays usable.
      const back = live.find((c) => c.codeHash === match);
      if (back) await codes.add(back);
      throw err;
    }
    const minted = await this.deps.tokens.mint(org.slug, 'Inbox (setup link)');
    return { org, token: minted.token };
  }

  private async newCode(firstRun: boolean): Promise<string> {
    const code = randomToken(24);
    await this.deps.codes.add({
      codeHash: sha256Hex(code),
      firstRun,
      expiresAt: this.deps.now() + SETUP_CODE_TTL_MS,
    });
    return code;
  }

  private window(client: string): { start: number; count: number } | undefined {
    const w = this.failures.get(client);
    if (w && this.deps.now() - w.start >= WINDOW_MS) {
      this.failures.delete(client);
      return undefined;
    }
    return w;
  }

  private checkLimit(client: string): void {
    const w = this.window(client);
    if (w && w.count >= SETUP_FAILURES_PER_WINDOW) {
      const retryAfter = Math.max(1, Math.ceil((w.start + WINDOW_MS - this.deps.now()) / 1000));
      throw new SetupLimitedError(retryAfter);
    }
  }

  private fail(client: string): void {
    const w = this.window(client);
    if (w) {
      w.count++;
      return;
    }
    if (this.failures.size >= MAX_TRACKED) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    this.failures.set(client, { start: this.deps.now(), count: 1 });
  }
}

/** 429 with the seconds until the address may try again (the route sends Retry-After). */
export class SetupLimitedError extends HttpError {
  constructor(readonly retryAfter: number) {
    const { status, message, code } = formsErrors.error('SETUP_LIMITED', { seconds: retryAfter });
    super(status, message, code);
  }
}
