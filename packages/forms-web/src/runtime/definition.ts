// The form definition as docs/definition-format.md defines it (the server validates it on PUT, so
// the runtime trusts its shape and only guards against what would break rendering).
import type { RuntimeTextKey } from '@havn/forms/runtime-texts';
import type { Condition } from '@havn/forms/show-if';

export interface ChoiceOption {
  value: string;
  label: string;
}

interface QuestionBase {
  logicalName: string;
  label: string;
  help?: string;
  required?: boolean;
  placeholder?: string;
  showIf?: Condition;
  /** Never kept in the browser's draft (docs/forms-web.md#resumable-answers). */
  sensitive?: boolean;
}

export interface TextQuestion extends QuestionBase {
  type: 'text';
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}
export interface EmailQuestion extends QuestionBase {
  type: 'email';
  maxLength?: number;
}
export interface TextareaQuestion extends QuestionBase {
  type: 'textarea';
  minLength?: number;
  maxLength?: number;
  rows?: number;
}
export interface NumberQuestion extends QuestionBase {
  type: 'number';
  min?: number;
  max?: number;
  step?: number;
}
export interface ChoiceQuestion extends QuestionBase {
  type: 'choice';
  options: ChoiceOption[];
  multiple?: boolean;
  minSelected?: number;
  maxSelected?: number;
}
export interface DateQuestion extends QuestionBase {
  type: 'date';
  min?: string;
  max?: string;
}
export interface ConsentQuestion extends QuestionBase {
  type: 'consent';
}

/** docs/forms.md#file-uploads: files are sent as the parts of a multipart post. */
export interface FileQuestion extends QuestionBase {
  type: 'file';
  accept?: string[];
  maxBytes?: number;
  maxFiles?: number;
}

export type Question =
  | TextQuestion
  | EmailQuestion
  | TextareaQuestion
  | NumberQuestion
  | ChoiceQuestion
  | DateQuestion
  | ConsentQuestion
  | FileQuestion;

export interface Definition {
  intro: { title: string; text?: string; image?: { url: string; alt: string } };
  questions: Question[];
  submitFields?: Record<string, string>;
  thanks?: string;
  /** Steps (docs/definition-format.md#steps-and-conditions); without it, one page. */
  pages?: { title?: string; questions: string[]; showIf?: Condition }[];
  /** false: keep no draft of the answers in the browser. */
  resume?: boolean;
  /** The language of the runtime's own words (docs/forms-web.md#languages), e.g. `da`. */
  locale?: string;
  /** Any of the runtime's own words, replaced. */
  texts?: Partial<Record<RuntimeTextKey, string>>;
}

/**
 * The definition as the public endpoint serves it, with the submit block the server adds
 * (docs/forms.md#public-no-token-gated-by-the-forms-allowedorigins); a "pow" form's names where
 * to get its proof-of-work challenge (docs/forms.md#spam).
 */
export interface PublicDefinition extends Definition {
  submit: {
    submitUrl: string;
    submitMethod: string;
    spamProtection?: 'pow';
    challengeUrl?: string;
  };
}

/** One answer value of the submission body (definition-format.md, "The submission body"). */
export type AnswerValue = string | number | boolean | string[];
