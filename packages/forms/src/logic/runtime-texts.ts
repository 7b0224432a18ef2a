// The form runtime's own words (docs/forms-web.md#languages), in English: the runtime shows these
// unless the definition's `locale` has a translation (loaded on demand) or its `texts` override
// one. The server takes the keys for the definition schema, so a misspelt override is refused.
// `{n}`-style slots are filled in by the runtime; a key ending in `_one` is the singular form
// (chosen with the locale's plural rules).
export const RUNTIME_TEXTS = {
  loading: 'Loading the form…',
  loadFailed: 'The form could not be loaded. Check your connection and try again.',
  notFound: 'This form could not be found.',
  origin: 'This form cannot be used on this website: its owner has not allowed {origin}.',
  sendFailed:
    'Your answers could not be sent because of a network or server problem. Nothing you typed is lost: try again.',
  tooLarge: 'Your answers are too long to send. Shorten them and try again.',
  rateLimited: 'Too many submissions from your network. Wait a minute, then try again.',
  gone: 'This form no longer accepts answers.',
  rejected: 'The form could not be sent: {reason}',
  invalid: '{n} answers need attention.',
  invalid_one: '{n} answer needs attention.',
  thanks: 'Thank you, your answers have been sent.',
  send: 'Send',
  sending: 'Sending…',
  next: 'Next',
  back: 'Back',
  clear: 'Clear answers',
  tryAgain: 'Try again',
  step: 'Step {n} of {count}',
  requiredHint: '(required)',
  required: 'This field is required.',
  chooseOne: 'Choose an option.',
  chooseSome: 'Choose at least one option.',
  tick: 'Tick this box to continue.',
  email: 'Enter an email address like name@example.com.',
  minLength: 'Use at least {n} characters.',
  minLength_one: 'Use at least {n} character.',
  maxLength: 'Use at most {n} characters.',
  maxLength_one: 'Use at most {n} character.',
  pattern: 'Use the expected format.',
  number: 'Enter a number.',
  numberMin: 'Enter a number of at least {n}.',
  numberMax: 'Enter a number of at most {n}.',
  numberStep: 'Enter a number in steps of {step}.',
  numberStepFrom: 'Enter a number in steps of {step} from {min}.',
  date: 'Enter a date as YYYY-MM-DD.',
  dateMin: 'Choose a date on or after {date}.',
  dateMax: 'Choose a date on or before {date}.',
  minSelected: 'Choose at least {n} options.',
  minSelected_one: 'Choose at least {n} option.',
  maxSelected: 'Choose at most {n} options.',
  maxSelected_one: 'Choose at most {n} option.',
  maxFiles: 'Choose at most {n} files.',
  maxFiles_one: 'Choose at most {n} file.',
  fileTooLarge: '{name} is larger than {size}.',
  uploading: 'Sending… {n}%',
};

export type RuntimeTextKey = keyof typeof RUNTIME_TEXTS;

/** The locales the runtime ships translations of (English is built in). */
export const RUNTIME_LOCALES = ['ar', 'da', 'de', 'es', 'fr', 'nb'] as const;
