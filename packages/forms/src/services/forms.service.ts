import type { FileBytes } from '../store/file-bytes.js';
import type { Form, FormListItem, FormStore } from '../store/forms.store.js';
import { checkUploadCap, validateDefinition } from './definition-validator.js';
import { existingForm } from './existing-form.js';
import { toFormPatch, toFormWrite, type FormBody } from './form-input.service.js';
import { formsErrors } from '../errors.js';

export type { Form, FormListItem } from '../store/forms.store.js';

/** What `GET .../forms/<form>` answers: the form, its current definition and its public URL. */
export interface FormView {
  form: Form;
  definition?: Record<string, unknown>;
  embedUrl: string;
}

/** Forms and their versioned definitions (docs/forms.md#forms-and-definitions). */
export class FormsService {
  constructor(
    private readonly forms: FormStore,
    private readonly now: () => number,
    /** UPLOAD_MAX_BYTES: no `file` question may allow more (docs/forms.md#file-uploads). */
    private readonly uploadMaxBytes: number,
    private readonly files: FileBytes,
  ) {}

  private iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** The form, or 404. */
  get(org: string, form: string): Promise<Form> {
    return existingForm(this.forms, org, form);
  }

  list(org: string): Promise<FormListItem[]> {
    return this.forms.list(org);
  }

  /** `baseUrl` is this server's public base, for `embedUrl`. */
  async view(org: string, form: string, baseUrl: string): Promise<FormView> {
    const found = await this.get(org, form);
    const stored = await this.forms.definition(org, form);
    return {
      form: found,
      ...(stored ? { definition: stored.definition } : {}),
      embedUrl: `${baseUrl}/api/orgs/${encodeURIComponent(org)}/forms/${encodeURIComponent(form)}/definition`,
    };
  }

  /** PUT: replaces the form, creating it if need be. */
  replace(org: string, form: string, body: FormBody): Promise<Form> {
    const write = toFormWrite(form, body);
    if (write.definition) checkUploadCap(write.definition, this.uploadMaxBytes, 'definition');
    return this.forms.put(org, form, write, this.iso());
  }

  /** PATCH: only the fields the body names; 404 for a form that does not exist. */
  async patch(org: string, form: string, body: FormBody): Promise<Form> {
    const current = await this.get(org, form);
    const patch = toFormPatch(body, current);
    if (patch.definition) checkUploadCap(patch.definition, this.uploadMaxBytes, 'definition');
    const patched = await this.forms.patch(org, form, patch, this.iso());
    if (!patched) throw formsErrors.error('FORM_NOT_FOUND', { org, form });
    return patched;
  }

  /** Deletes the form with its submissions and deliveries. */
  async remove(org: string, form: string): Promise<void> {
    const files = await this.forms.delete(org, form);
    if (!files) throw formsErrors.error('FORM_NOT_FOUND', { org, form });
    // After the commit, as erasure does (docs/forms.md#file-uploads).
    await this.files.remove(files);
  }

  /** Stores a definition (validated); answers its version, unchanged when the definition is. */
  async putDefinition(org: string, form: string, definition: unknown): Promise<number> {
    await this.get(org, form);
    validateDefinition(definition);
    checkUploadCap(definition, this.uploadMaxBytes);
    const version = await this.forms.putDefinition(org, form, definition, this.iso());
    if (version === undefined) throw formsErrors.error('FORM_NOT_FOUND', { org, form });
    return version;
  }

  /** Every version of the definition with when it was saved, newest first (404: no form). */
  async definitionVersions(
    org: string,
    form: string,
  ): Promise<{ version: number; createdAt: string }[]> {
    await this.get(org, form);
    return this.forms.versions(org, form);
  }

  /** One stored version of the definition, or 404. */
  async definitionVersion(
    org: string,
    form: string,
    version: number,
  ): Promise<Record<string, unknown>> {
    await this.get(org, form);
    const stored = await this.forms.definition(org, form, version);
    if (!stored) {
      throw formsErrors.error('DEFINITION_VERSION_NOT_FOUND', { org, form, version });
    }
    return stored.definition;
  }
}
