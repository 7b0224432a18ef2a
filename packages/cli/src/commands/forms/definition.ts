// `havn forms definition get|put <form> [file]` (docs/cli.md#havn-forms). `put` validates the file
// against the server's own JSON Schema (GET /schema/definition.json, docs/definition-format.md)
// before sending, so a mistake is named with its path and nothing reaches the server.
import { readFile } from 'node:fs/promises';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors.js';
import { jsonText } from '../../output/json-text.js';
import { terminalSafe, toStdout, writeOutput } from '../../output/output-file.js';
import { isRecord } from '../../upstream/coerce.js';
import { formsApi, onForm, parseFormId, type FormsOptions } from './forms-api.js';

export interface PutOptions extends FormsOptions {
  readonly dryRun?: boolean;
}

export async function getDefinition(
  ctx: CliContext,
  formArg: string,
  file: string | undefined,
  o: FormsOptions,
): Promise<void> {
  const form = parseFormId(formArg);
  const api = await formsApi(ctx, o);
  const answer = await onForm(api, form, () => api.client.json('GET', api.formPath(form)));
  const definition = isRecord(answer) ? answer.definition : undefined;
  if (!isRecord(definition)) {
    throw new CliError(
      `Form ${api.org}/${form} has no definition yet. Write one (docs/definition-format.md) and run havn forms definition put ${form} <file>.`,
    );
  }
  const text = `${jsonText(definition, 2)}\n`;
  const output = file ?? '-';
  if (toStdout(output)) {
    ctx.stdout.write(terminalSafe(ctx, text));
    return;
  }
  await writeOutput(ctx, output, Buffer.from(text));
  const version =
    isRecord(answer) && isRecord(answer.form) ? answer.form.definitionVersion : undefined;
  ctx.stderr.write(
    `Wrote the definition of ${api.org}/${form}${typeof version === 'number' ? ` (version ${String(version)})` : ''} to ${output}.\n`,
  );
}

export async function putDefinition(
  ctx: CliContext,
  formArg: string,
  file: string | undefined,
  o: PutOptions,
): Promise<void> {
  const form = parseFormId(formArg);
  const source = file ?? '-';
  const name = toStdout(source) ? 'standard input' : source;
  const definition = parseJson(await readSource(ctx, source), name);
  const api = await formsApi(ctx, o);
  const schema = await api.client.json('GET', '/schema/definition.json');
  const problem = await schemaProblem(schema, definition);
  if (problem !== undefined) {
    throw new CliError(
      `${name}: ${problem}\nNothing was sent; the format is in docs/definition-format.md.`,
    );
  }
  if (o.dryRun === true) {
    ctx.stderr.write(
      `${name} is a valid definition (checked against the schema of ${api.client.target.url}).\n`,
    );
    return;
  }
  const saved = await onForm(api, form, () =>
    api.client.json('PUT', api.formPath(form, '/definition'), definition),
  );
  const version = isRecord(saved) ? saved.version : undefined;
  ctx.stderr.write(
    `Saved the definition of ${api.org}/${form} as version ${typeof version === 'number' ? String(version) : '?'}.\n`,
  );
}

async function readSource(ctx: CliContext, source: string): Promise<string> {
  if (toStdout(source)) {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.stdin()) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await readFile(source, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      `Could not read ${source}: ${code === 'ENOENT' ? 'no such file' : (code ?? String(error))}.`,
    );
  }
}

function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`${name} is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The first problem of `value` under the published schema, as `path: message` with the slash path
 * the server uses (`questions/2/type: …`), or undefined when it is valid. The deepest error is the
 * useful one: `if`/`then` and `allOf` wrap the real one in errors about themselves.
 */
async function schemaProblem(schema: unknown, value: unknown): Promise<string | undefined> {
  if (!isRecord(schema))
    throw new CliError('The forms server answered a schema that is not a JSON object.');
  // Ajv: the well-kept JSON Schema validator (draft 2020-12, which the schema declares).
  // CommonJS: an ES import sees module.exports as `default`, and ajv's class is its `default`.
  const Ajv2020 = (await import('ajv/dist/2020.js')).default.default;
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
  const { $id: _id, ...local } = schema; // its $id names the server; nothing is fetched by it
  const validate = ajv.compile(local);
  if (validate(value)) return undefined;
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'if' && e.keyword !== 'allOf');
  const depth = (path: string) => path.split('/').length;
  const first = [...errors].sort((a, b) => depth(b.instancePath) - depth(a.instancePath))[0];
  if (!first) return '(root): does not match the definition format';
  let path = first.instancePath.replace(/^\//, '');
  let message = first.message ?? 'is invalid';
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'required' && typeof params.missingProperty === 'string') {
    path = [path, params.missingProperty].filter(Boolean).join('/');
    message = 'is required';
  } else if (
    first.keyword === 'additionalProperties' &&
    typeof params.additionalProperty === 'string'
  ) {
    path = [path, params.additionalProperty].filter(Boolean).join('/');
    message = 'is not a field of the definition format';
  } else if (first.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    message = `must be one of ${params.allowedValues.map(String).join(', ')}`;
  }
  return `${path === '' ? '(root)' : path}: ${message}`;
}
