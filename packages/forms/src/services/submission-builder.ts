import { HttpError } from '@havn/shared';
import { formsErrors } from '../errors.js';
import type { SubmissionBuilder } from '../store/group-commit.js';
import { buildFromRequest } from './ingest.service.js';

/** The errors building a submission's rows throws for its body: each refuses it (a 400). */
const refusals = [
  'BODY_NOT_JSON',
  'BODY_NOT_ANSWERS',
  'SUBMIT_FIELDS_NOT_OBJECT',
  'SUBMIT_FIELD_INVALID',
  'SUBMIT_FIELDS_NOT_FLAT',
  'ANSWER_TYPE_INVALID',
  'ANSWER_NOT_SINGLE',
  'ANSWER_REQUIRED',
  'FILE_ANSWER_NOT_MULTIPART',
] as const;

/**
 * Ingest's rules as the store takes them: the rows of one submission, and which of the errors
 * building them refuse it for its body (their code and text, which is the answer) rather than
 * fail.
 */
export const submissionBuilder: SubmissionBuilder = {
  build: buildFromRequest,
  refusal: (err) =>
    err instanceof HttpError &&
    err.code !== undefined &&
    refusals.some((name) => formsErrors.is(err, name))
      ? { code: err.code, message: err.message }
      : undefined,
};
