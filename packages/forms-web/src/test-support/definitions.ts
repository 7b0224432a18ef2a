// The definition the UI tests use: every question type of docs/definition-format.md.
export const CONTACT_DEFINITION = {
  intro: { title: 'Contact us', text: 'We answer within one working day.' },
  questions: [
    { logicalName: 'name', type: 'text', label: 'Your name', required: true, maxLength: 200 },
    {
      logicalName: 'email',
      type: 'email',
      label: 'Email',
      required: true,
      placeholder: 'you@example.com',
    },
    {
      logicalName: 'message',
      type: 'textarea',
      label: 'Message',
      help: 'Plain text.',
      minLength: 10,
      maxLength: 5000,
    },
    { logicalName: 'seats', type: 'number', label: 'Seats', min: 1, max: 500, step: 1 },
    {
      logicalName: 'topic',
      type: 'choice',
      label: 'Topic',
      required: true,
      options: [
        { value: 'sales', label: 'Sales' },
        { value: 'support', label: 'Support' },
      ],
    },
    {
      logicalName: 'channels',
      type: 'choice',
      label: 'How can we reach you?',
      multiple: true,
      options: [
        { value: 'email', label: 'By email' },
        { value: 'phone', label: 'By phone' },
      ],
    },
    { logicalName: 'start', type: 'date', label: 'Start date', min: '2026-01-01' },
    { logicalName: 'terms', type: 'consent', label: 'I agree to the terms', required: true },
  ],
  submitFields: { source: 'website' },
  thanks: 'Thank you, we will be in touch.',
};
