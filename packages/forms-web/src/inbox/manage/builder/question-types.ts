// The question types of docs/definition-format.md as the visual builder offers them: what a new
// question of the type looks like and which of its fields the builder edits. Adding a type to the
// format is one entry here; a type the builder does not know is kept and edited as JSON.

/** `list`: a list of strings, written as one line separated by commas. */
export type FieldKind = 'integer' | 'number' | 'date' | 'text' | 'boolean' | 'list';

export interface FieldSpec {
  key: string;
  label: string;
  kind: FieldKind;
  help?: string;
}

export interface QuestionType {
  type: string;
  /** What the type picker calls it. */
  name: string;
  /** Whether the control shows a `placeholder`. */
  placeholder: boolean;
  /** Whether the question has `options` to edit. */
  options: boolean;
  /** The type's own fields, besides label, help, required and placeholder. */
  fields: FieldSpec[];
  /** Fields a new question of the type starts with (besides type, label and logicalName). */
  start?: Record<string, unknown>;
}

const minLength: FieldSpec = { key: 'minLength', label: 'Fewest characters', kind: 'integer' };
const maxLength: FieldSpec = { key: 'maxLength', label: 'Most characters', kind: 'integer' };

export const QUESTION_TYPES: readonly QuestionType[] = [
  {
    type: 'text',
    name: 'Short text',
    placeholder: true,
    options: false,
    fields: [
      minLength,
      maxLength,
      {
        key: 'pattern',
        label: 'Pattern',
        kind: 'text',
        help: 'A JavaScript regular expression the whole answer must match, e.g. [A-Z]{2}[0-9]{4}.',
      },
    ],
  },
  { type: 'email', name: 'Email', placeholder: true, options: false, fields: [maxLength] },
  {
    type: 'textarea',
    name: 'Long text',
    placeholder: true,
    options: false,
    fields: [minLength, maxLength, { key: 'rows', label: 'Rows shown', kind: 'integer' }],
  },
  {
    type: 'number',
    name: 'Number',
    placeholder: true,
    options: false,
    fields: [
      { key: 'min', label: 'Smallest', kind: 'number' },
      { key: 'max', label: 'Largest', kind: 'number' },
      { key: 'step', label: 'Step', kind: 'number', help: 'Answers go up in steps of this.' },
    ],
  },
  {
    type: 'choice',
    name: 'Multiple choice',
    placeholder: false,
    options: true,
    fields: [
      { key: 'multiple', label: 'People may choose more than one', kind: 'boolean' },
      { key: 'minSelected', label: 'Fewest choices', kind: 'integer' },
      { key: 'maxSelected', label: 'Most choices', kind: 'integer' },
    ],
    start: {
      options: [
        { value: 'option-1', label: 'Option 1' },
        { value: 'option-2', label: 'Option 2' },
      ],
    },
  },
  {
    type: 'date',
    name: 'Date',
    placeholder: false,
    options: false,
    fields: [
      { key: 'min', label: 'Earliest', kind: 'date' },
      { key: 'max', label: 'Latest', kind: 'date' },
    ],
  },
  { type: 'consent', name: 'Consent checkbox', placeholder: false, options: false, fields: [] },
  {
    type: 'file',
    name: 'File upload',
    placeholder: false,
    options: false,
    fields: [
      {
        key: 'accept',
        label: 'File types',
        kind: 'list',
        help: 'MIME types (image/png, image/*) and extensions (.pdf), separated by commas. Empty takes any type.',
      },
      {
        key: 'maxBytes',
        label: 'Largest file, in bytes',
        kind: 'integer',
        help: "At most the server's UPLOAD_MAX_BYTES, which is also the limit when this is empty.",
      },
      { key: 'maxFiles', label: 'Most files', kind: 'integer', help: '1 to 20; 1 when empty.' },
    ],
  },
];

export function questionType(type: unknown): QuestionType | undefined {
  return QUESTION_TYPES.find((t) => t.type === type);
}
