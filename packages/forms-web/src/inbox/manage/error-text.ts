// One wording for a failed call in every management view.
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
