// Resumable answers (docs/forms-web.md#resumable-answers): what a person has typed so far, kept
// in their own browser's localStorage per form and definition version, so a reload or a crash
// loses nothing. No server round trip. Answers to `sensitive` questions (and files) never reach
// it, and it is emptied after a successful send or with the form's Clear button.
import type { RawValue } from './validate.js';

export interface Draft {
  answers: Record<string, RawValue>;
  /** The page (step) the person was on. */
  page: number;
}

const PREFIX = 'havn:draft:';

/** FNV-1a: a small hash of the definition, so a changed definition starts from a fresh draft. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

/** localStorage, or null where the page may not use it (a sandboxed frame, storage disabled). */
function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

export class DraftStore {
  private readonly key: string;

  constructor(
    private readonly form: string,
    definition: unknown,
  ) {
    this.key = `${PREFIX}${form}#${hash(JSON.stringify(definition))}`;
  }

  /** The saved draft of this version; drafts of the form's other versions are dropped. */
  load(): Draft | null {
    const s = storage();
    if (!s) return null;
    try {
      for (let i = s.length - 1; i >= 0; i--) {
        const k = s.key(i);
        if (k?.startsWith(`${PREFIX}${this.form}#`) && k !== this.key) s.removeItem(k);
      }
      const draft = JSON.parse(s.getItem(this.key) ?? 'null') as Draft | null;
      return draft && typeof draft.answers === 'object' ? draft : null;
    } catch {
      return null;
    }
  }

  save(draft: Draft): void {
    try {
      storage()?.setItem(this.key, JSON.stringify(draft));
    } catch {
      // Storage full or refused: the form works on without a draft.
    }
  }

  clear(): void {
    try {
      storage()?.removeItem(this.key);
    } catch {
      // nothing to clear
    }
  }
}
