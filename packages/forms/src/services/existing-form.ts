import type { Form, FormStore } from '../store/forms.store.js';
import { formsErrors } from '../errors.js';

/** The form `org/form`, or a 404 naming it: the first check of every admin call on one form. */
export async function existingForm(forms: FormStore, org: string, form: string): Promise<Form> {
  const found = await forms.get(org, form);
  if (!found) throw formsErrors.error('FORM_NOT_FOUND', { org, form });
  return found;
}
