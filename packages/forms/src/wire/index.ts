// The forms API's request and response shapes as types, for clients in this repository (the
// inbox imports them from `@havn/forms/wire`, types only). The schemas behind them are in the
// files beside this one, one per group of routes; docs/architecture.md#wire-types.
export type { HealthAnswer, VersionAnswer } from './service.js';
export type { MintedTokenAnswer, OrgAnswer, TokenInfoAnswer } from './orgs.js';
export type {
  DefinitionVersionsAnswer,
  FormAnswer,
  FormBodyInput,
  FormSummaryAnswer,
  FormViewAnswer,
} from './forms.js';
export type {
  DeliveryAnswer,
  FileAnswer,
  SubmissionAnswer,
  SubmissionSummaryAnswer,
} from './submissions.js';
export type { VapidKeyAnswer } from './push.js';
export type { ReceivedAnswer } from './public.js';
export type {
  DeliveryAttemptAnswer,
  TargetCheckAnswer,
  WebhookDeliveryAnswer,
} from './webhook-deliveries.js';
export type { ChallengeAnswer, NotSpamAnswer } from './spam.js';
export type { SetupDoneAnswer, SetupLinkAnswer } from './setup.js';
