import { Compile } from 'typebox/compile';
import { logicProblem } from '../logic/show-if.js';
import {
  definitionShell,
  questionSchemas,
  questionTypes,
  type QuestionType,
} from './definition-schema.js';
import { formsErrors } from '../errors.js';

interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

interface Checker {
  Check(value: unknown): boolean;
  Errors(value: unknown): SchemaError[];
}

const shell = Compile(definitionShell) as unknown as Checker;
const perType = Object.fromEntries(
  questionTypes.map((t) => [t, Compile(questionSchemas[t]) as unknown as Checker]),
) as Record<QuestionType, Checker>;

function isQuestionType(v: unknown): v is QuestionType {
  return typeof v === 'string' && (questionTypes as readonly string[]).includes(v);
}

/** The first error, as "path: message" with a slash path like `questions/2/type`. */
function describe(errors: SchemaError[], prefix: string): string {
  // Prefer the most specific error: the deepest path, then the first reported.
  const first = [...errors].sort(
    (a, b) => b.instancePath.split('/').length - a.instancePath.split('/').length,
  )[0];
  if (!first) return `${prefix || '(root)'}: invalid`;
  let path = first.instancePath.replace(/^\//, '');
  let message = first.message;
  if (first.keyword === 'required') {
    const missing = (first.params.requiredProperties as string[] | undefined)?.[0] ?? '';
    path = path ? `${path}/${missing}` : missing;
    message = 'is required';
  } else if (first.keyword === 'boolean' || first.keyword === 'additionalProperties') {
    const extra = (first.params.additionalProperties as string[] | undefined)?.[0];
    if (extra) path = path ? `${path}/${extra}` : extra;
    message = 'is not a field of the definition format';
  }
  const full = [prefix, path].filter(Boolean).join('/');
  return `${full || '(root)'}: ${message}`;
}

function fail(prefix: string, path: string, message: string): never {
  throw formsErrors.error('DEFINITION_INVALID', {
    problem: `${[prefix, path].filter(Boolean).join('/')}: ${message}`,
  });
}

/**
 * Validates a definition against the format of docs/definition-format.md; throws a 400 naming the
 * path of the first bad field, prefixed with `prefix` (e.g. `definition`).
 */
export function validateDefinition(value: unknown, prefix = ''): asserts value is object {
  if (!shell.Check(value))
    throw formsErrors.error('DEFINITION_INVALID', {
      problem: describe(shell.Errors(value), prefix),
    });
  const { questions } = value as { questions: Record<string, unknown>[] };
  const names = new Set<string>();
  questions.forEach((q, i) => {
    const at = `questions/${String(i)}`;
    if (!isQuestionType(q.type)) {
      fail(prefix, `${at}/type`, `must be one of ${questionTypes.join(', ')}`);
    }
    const checker = perType[q.type];
    if (!checker.Check(q)) {
      throw formsErrors.error('DEFINITION_INVALID', {
        problem: describe(checker.Errors(q), [prefix, at].filter(Boolean).join('/')),
      });
    }
    const name = q.logicalName as string;
    if (names.has(name)) fail(prefix, `${at}/logicalName`, `duplicate logicalName "${name}"`);
    names.add(name);
    if (typeof q.pattern === 'string') {
      try {
        new RegExp(q.pattern);
      } catch {
        fail(prefix, `${at}/pattern`, 'is not a valid regular expression');
      }
    }
    if (Array.isArray(q.options)) {
      const values = new Set<string>();
      (q.options as { value: string }[]).forEach((o, j) => {
        if (values.has(o.value)) {
          fail(prefix, `${at}/options/${String(j)}/value`, `duplicate option value "${o.value}"`);
        }
        values.add(o.value);
      });
    }
  });
  // docs/definition-format.md#steps-and-conditions: pages cover every question once, and each
  // condition names only questions before it (so no cycle can be written).
  const problem = logicProblem(value as { questions: Record<string, unknown>[]; pages?: unknown });
  if (problem)
    throw formsErrors.error('DEFINITION_INVALID', {
      problem: [prefix, problem].filter(Boolean).join('/'),
    });
}

/**
 * docs/forms.md#file-uploads: a `file` question's `maxBytes` may not exceed the server's
 * UPLOAD_MAX_BYTES (`cap`); 400 naming the path otherwise.
 */
export function checkUploadCap(definition: object, cap: number, prefix = ''): void {
  const { questions } = definition as { questions: Record<string, unknown>[] };
  questions.forEach((q, i) => {
    if (q.type === 'file' && typeof q.maxBytes === 'number' && q.maxBytes > cap) {
      fail(
        prefix,
        `questions/${String(i)}/maxBytes`,
        `must be at most ${String(cap)} (the server's UPLOAD_MAX_BYTES)`,
      );
    }
  });
}
