import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { canonicalAddress, classifyAddress, isIpLiteral } from './address-policy.js';

/** What a deployment lets through the private-address policy (docs/render.md#private-network-policy). */
export interface HostPolicy {
  /** Host names exempt from the policy: an entry matches itself and any subdomain. */
  readonly allowedHosts: readonly string[];
  /** ALLOW_PRIVATE_NETWORK=1 (render) or ALLOW_PRIVATE_WEBHOOKS=1 (forms): no checks at all. */
  readonly allowPrivate: boolean;
}

export type HostVerdict =
  | { ok: true; addresses: LookupAddress[] }
  | { ok: false; reason: 'refused'; host: string; address: string; range: string; message: string }
  | { ok: false; reason: 'unresolved'; host: string; message: string };

/** Resolves a name to every address it has (the system's resolver unless a caller brings one). */
export type Resolver = (host: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, order: 'verbatim' });

function normalizeHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

/** ALLOWED_HOSTS matching: exact name or any subdomain, case-insensitive (docs/render.md#configuration). */
export function isAllowedHost(host: string, allowedHosts: readonly string[]): boolean {
  const h = normalizeHost(host);
  return allowedHosts.some((entry) => {
    const e = normalizeHost(entry);
    return e !== '' && (h === e || h.endsWith(`.${e}`));
  });
}

/**
 * Resolves `host` and judges every address it resolves to. Callers connect to one of the returned
 * addresses, never to the name again, so a DNS answer that changes between check and connect
 * (rebinding) cannot slip through.
 */
export async function checkHost(
  host: string,
  policy: HostPolicy,
  resolve: Resolver = systemResolver,
): Promise<HostVerdict> {
  const name = normalizeHost(host);
  const exempt = policy.allowPrivate || isAllowedHost(name, policy.allowedHosts);
  let addresses: LookupAddress[];
  if (isIpLiteral(name)) {
    const address = canonicalAddress(name);
    addresses = [{ address, family: address.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(name);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'lookup failed';
      return {
        ok: false,
        reason: 'unresolved',
        host: name,
        message: `cannot resolve ${name}: ${code}`,
      };
    }
    if (addresses.length === 0) {
      return { ok: false, reason: 'unresolved', host: name, message: `cannot resolve ${name}` };
    }
  }
  if (exempt) return { ok: true, addresses };
  for (const { address } of addresses) {
    const refused = classifyAddress(address);
    if (refused) {
      return {
        ok: false,
        reason: 'refused',
        host: name,
        address,
        range: refused.range,
        message: `host ${name} resolves to ${address}, which is in the refused range ${refused.range}`,
      };
    }
  }
  return { ok: true, addresses };
}

/** An error raised by `guardedLookup` for a refused or unresolvable host. */
export class HostRefusedError extends Error {
  readonly code = 'EHOSTREFUSED';
  constructor(readonly verdict: Exclude<HostVerdict, { ok: true }>) {
    super(verdict.message);
    this.name = 'HostRefusedError';
  }
}

/**
 * A `lookup` for `net`/`http`/`https` agents that applies the policy: the socket connects only to
 * an address that was checked. Handles both the single and the `all: true` calling conventions.
 */
export function guardedLookup(policy: HostPolicy, resolve?: Resolver): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    checkHost(hostname, policy, resolve).then(
      (verdict) => {
        if (!verdict.ok) {
          callback(new HostRefusedError(verdict), '', 0);
          return;
        }
        const wanted = verdict.addresses.filter(
          (a) => !options.family || options.family === a.family,
        );
        if (options.all) {
          (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, wanted);
        } else {
          const first = wanted[0];
          if (first) callback(null, first.address, first.family);
          else
            callback(new Error(`no IPv${String(options.family)} address for ${hostname}`), '', 0);
        }
      },
      (err: unknown) => {
        callback(err as NodeJS.ErrnoException, '', 0);
      },
    );
  };
}
