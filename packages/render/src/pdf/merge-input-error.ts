/** An input of a merge that cannot be used (encrypted, not a PDF, a tree that cannot be read). */
export class MergeInputError extends Error {
  constructor(
    readonly index: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'MergeInputError';
  }
}
