import { UsageError } from '../errors.js';

/** A whole-number option such as --limit, or a usage error naming it and its range. */
export function wholeNumber(text: string, option: string, min: number, max: number): number {
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(value >= min && value <= max)) {
    throw new UsageError(
      `${option} must be a whole number from ${String(min)} to ${String(max)}; got '${text}'.`,
    );
  }
  return value;
}
