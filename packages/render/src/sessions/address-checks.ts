import type { HostPolicy, Resolver } from '@havn/shared';
import { policyRefusal } from '../netguard/url-check.js';

// The private-network verdict on a URL a session's client navigates to, with the look-ups in
// flight capped per session (docs/sessions.md#where-the-door-waits). The door gives up waiting on
// a verdict after a few seconds, but the look-up itself goes on (getaddrinfo cannot be cancelled,
// and it holds one of libuv's four pool threads until the resolver answers): without a cap, a
// client whose names take long to resolve could start one after another and starve the pool that
// every file read of the service shares. Past the cap a navigation is refused at once.

/** Look-ups one session may have unanswered at a time, the ones the door stopped waiting on included. */
export const MAX_LOOKUPS_PER_SESSION = 2;

export function sessionAddressCheck(
  policy: HostPolicy,
  resolve: Resolver | undefined,
  max = MAX_LOOKUPS_PER_SESSION,
): (url: string) => Promise<string | undefined> {
  let inFlight = 0;
  return async (url) => {
    if (inFlight >= max) {
      return `${max} address look-ups of this session are still unanswered; retry when one has answered`;
    }
    inFlight++;
    try {
      return await policyRefusal(url, policy, resolve);
    } finally {
      inFlight--;
    }
  };
}
