/** docs/forms.md#webhooks: after a failed attempt wait 5 s, 30 s, 2 min, … 8 h (about a day in all). */
export const webhookRetrySchedule: readonly number[] = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000,
  28_800_000,
];

/**
 * A push is only worth something while it is fresh: it gets the first four steps (about 13
 * minutes) and its TTL, then gives up (docs/forms.md#web-push).
 */
export const pushRetrySteps = 4;

/**
 * The delay before the next attempt, or undefined when the schedule is exhausted. The jitter only
 * lengthens a delay (up to +10%), so the whole schedule never gets shorter than the decision says.
 */
export function nextDelay(
  schedule: readonly number[],
  failedAttempts: number,
  random: () => number = Math.random,
): number | undefined {
  const base = schedule[failedAttempts - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 + 0.1 * random()));
}
