// What the OpenAPI tests of render and forms share: whether a real answer's body is one its
// operation's documented response allows, checked with the Ajv compiler Fastify itself uses.
import AjvCompiler from '@fastify/ajv-compiler';

interface Media {
  schema?: unknown;
}

/** A documented response, as far as the check reads it. */
export interface DocumentedResponse {
  content?: Record<string, Media>;
}

/** A real answer: its status, its media type without parameters, and its body as text. */
export interface AnswerBody {
  status: number;
  type: string;
  text: string;
}

/** An object schema that names its properties describes those only (the serializer's view). */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = closed(v);
  if ('properties' in out && !('additionalProperties' in out) && !('patternProperties' in out)) {
    out.additionalProperties = false;
  }
  return out;
}

const compile = AjvCompiler()(
  {},
  {
    customOptions: {
      strict: false,
      allErrors: true,
      removeAdditional: false,
      useDefaults: false,
      coerceTypes: false,
    },
  },
);

/**
 * Why `answer`'s body is not one `response` documents (schemas resolved against `components`);
 * undefined when it is. A body of its own type (an artifact, a file) matches the range `*\/*`.
 */
export function bodyProblem(
  response: DocumentedResponse,
  answer: AnswerBody,
  components: unknown,
): string | undefined {
  const media = response.content?.[answer.type] ?? response.content?.['*/*'];
  if (!media?.schema) {
    return `answered ${answer.status} as ${answer.type}, for which the document has no schema`;
  }
  const body: unknown = answer.type.endsWith('json') ? JSON.parse(answer.text) : answer.text;
  const validate = compile({
    schema: { ...(closed(media.schema) as object), components },
    method: 'GET',
    url: '/',
    httpPart: 'body',
  });
  if (validate(body)) return undefined;
  return `answered ${answer.status} with a body its schema refuses (${JSON.stringify(validate.errors)}): ${answer.text.slice(0, 300)}`;
}
