import { HttpError } from '@havn/shared';
import type { SubmissionBuilder } from '../store/group-commit.js';
import { buildFromRequest } from './ingest.service.js';

/**
 * Ingest's rules as the store takes them: the rows of one submission, and which of the errors
 * building them refuse it for its body (the 400s, whose text is the answer) rather than fail.
 */
export const submissionBuilder: SubmissionBuilder = {
  build: buildFromRequest,
  refusal: (err) => (err instanceof HttpError && err.status === 400 ? err.message : undefined),
};
