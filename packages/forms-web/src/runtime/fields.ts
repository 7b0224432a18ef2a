// One question → its native, labelled control (docs/definition-format.md, "By type"). Each field
// keeps its help and error text in elements that aria-describedby points at, so a screen reader
// reads the label, the help and the current error together.
import type { ChoiceQuestion, Question } from './definition.js';
import { el } from './dom.js';
import type { Texts } from './texts.js';
import type { RawValue } from './validate.js';

export interface Field {
  question: Question;
  root: HTMLElement;
  /** The control that takes focus when the field is invalid. */
  focusTarget: HTMLElement;
  read(): { raw: RawValue; badInput: boolean };
  /** The files picked (a `file` question); they are sent as parts, never kept in a draft. */
  files?: () => File[];
  /** Puts a saved answer back into the control (resumable answers). */
  write(raw: RawValue): void;
  showError(message: string | null): void;
}

function requiredMark(q: Question): (Node | string)[] {
  if (!q.required) return [];
  // Sighted users see the asterisk; the control's required state tells assistive technology.
  return [' ', el('span', { class: 'req', 'aria-hidden': 'true' }, '*')];
}

export function buildField(q: Question, index: number, tx: Texts): Field {
  const id = `q${index}`;
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const help = q.help ? el('p', { class: 'help', id: helpId }, q.help) : null;
  const error = el('p', { class: 'error', id: errorId });
  const describedBy = (withError: boolean) =>
    [help ? helpId : '', withError ? errorId : ''].filter(Boolean).join(' ') || undefined;

  if (q.type === 'choice') return buildChoice(q, id, help, error, describedBy, tx);
  if (q.type === 'file') {
    const input = el('input', {
      id,
      name: q.logicalName,
      type: 'file',
      required: q.required === true,
      accept: q.accept?.join(','),
      multiple: (q.maxFiles ?? 1) > 1,
      'aria-describedby': describedBy(false),
    });
    const files = () => Array.from(input.files ?? []);
    return {
      question: q,
      root: el(
        'div',
        { class: 'field' },
        el('label', { for: id }, q.label, ...requiredMark(q)),
        help,
        input,
        error,
      ),
      focusTarget: input,
      files,
      read: () => ({ raw: files().map((f) => f.name), badInput: false }),
      write: () => undefined,
      showError: errorShower(input, error, describedBy),
    };
  }

  let control: HTMLInputElement | HTMLTextAreaElement;
  const common = {
    id,
    name: q.logicalName,
    required: q.required === true,
    placeholder: q.placeholder,
    'aria-describedby': describedBy(false),
  };
  let root: HTMLElement;
  if (q.type === 'consent') {
    control = el('input', { ...common, type: 'checkbox', placeholder: undefined });
    root = el(
      'div',
      { class: 'field' },
      el(
        'div',
        { class: 'consent' },
        control,
        el('label', { for: id }, q.label, ...requiredMark(q)),
      ),
      help,
      error,
    );
  } else {
    if (q.type === 'textarea') {
      control = el('textarea', {
        ...common,
        rows: q.rows ?? 5,
        minlength: q.minLength,
        maxlength: q.maxLength,
      });
    } else if (q.type === 'number') {
      // Text, not type=number: the browser would parse in its own language, not the form's
      // (docs/forms-web.md#languages); inputmode still brings up a number pad.
      control = el('input', { ...common, type: 'text', inputmode: 'decimal' });
    } else if (q.type === 'date') {
      control = el('input', { ...common, type: 'date', min: q.min, max: q.max });
    } else if (q.type === 'email') {
      control = el('input', {
        ...common,
        type: 'email',
        autocomplete: 'email',
        maxlength: q.maxLength,
      });
    } else {
      // No maxlength/pattern attributes on text: the browser would silently cut or block the text,
      // while our validation explains what is wrong.
      control = el('input', { ...common, type: 'text' });
    }
    root = el(
      'div',
      { class: 'field' },
      el('label', { for: id }, q.label, ...requiredMark(q)),
      help,
      control,
      error,
    );
  }
  const input = control;
  return {
    question: q,
    root,
    focusTarget: input,
    read: () => ({
      raw:
        input instanceof HTMLInputElement && input.type === 'checkbox'
          ? input.checked
          : input.value,
      badInput: input.validity.badInput,
    }),
    write(raw) {
      if (input instanceof HTMLInputElement && input.type === 'checkbox')
        input.checked = raw === true;
      else if (typeof raw === 'string') input.value = raw;
    },
    showError: errorShower(input, error, describedBy),
  };
}

/** Shows `message` (null: none) under one control, tied to it with aria-describedby. */
function errorShower(
  input: HTMLElement,
  error: HTMLElement,
  describedBy: (withError: boolean) => string | undefined,
): (message: string | null) => void {
  return (message) => {
    error.textContent = message ?? '';
    input.setAttribute('aria-invalid', String(message !== null));
    const by = describedBy(message !== null);
    if (by) input.setAttribute('aria-describedby', by);
    else input.removeAttribute('aria-describedby');
  };
}

function buildChoice(
  q: ChoiceQuestion,
  id: string,
  help: HTMLElement | null,
  error: HTMLElement,
  describedBy: (withError: boolean) => string | undefined,
  tx: Texts,
): Field {
  const type = q.multiple ? 'checkbox' : 'radio';
  const inputs = q.options.map((option, i) =>
    el('input', {
      type,
      id: `${id}-${i}`,
      name: q.logicalName,
      value: option.value,
      // A radio group is required as a whole; a checkbox group's rule is in the legend and error.
      required: !q.multiple && q.required === true,
    }),
  );
  const fieldset = el(
    'fieldset',
    { class: 'field', id, 'aria-describedby': describedBy(false) },
    el(
      'legend',
      {},
      q.label,
      ...requiredMark(q),
      q.required && q.multiple ? el('span', { class: 'sr' }, ` ${tx.t('requiredHint')}`) : null,
    ),
    help,
    ...q.options.map((option, i) =>
      el('div', { class: 'option' }, inputs[i], el('label', { for: `${id}-${i}` }, option.label)),
    ),
    error,
  );
  return {
    question: q,
    root: fieldset,
    focusTarget: inputs[0] as HTMLInputElement,
    read() {
      const picked = inputs.filter((i) => i.checked).map((i) => i.value);
      return { raw: q.multiple ? picked : (picked[0] ?? ''), badInput: false };
    },
    write(raw) {
      const values = ([] as unknown[]).concat(raw);
      for (const input of inputs) input.checked = values.includes(input.value);
    },
    showError(message) {
      error.textContent = message ?? '';
      for (const input of inputs) input.setAttribute('aria-invalid', String(message !== null));
      const by = describedBy(message !== null);
      if (by) fieldset.setAttribute('aria-describedby', by);
      else fieldset.removeAttribute('aria-describedby');
    },
  };
}
