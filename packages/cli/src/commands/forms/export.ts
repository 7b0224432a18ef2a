// `havn forms export <form>`: the server's export (CSV or JSON, every submission oldest first)
// byte for byte into a file, or to stdout (docs/cli.md#havn-forms).
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { terminalSafe, toStdout } from '../../output/output-file.js';
import { formsApi, onForm, parseFormId, type FormsOptions } from './forms-api.js';

export interface ExportOptions extends FormsOptions {
  readonly format: string;
  readonly output: string;
  readonly since?: string;
  readonly until?: string;
}

export async function exportSubmissions(
  ctx: CliContext,
  formArg: string,
  o: ExportOptions,
): Promise<void> {
  const form = parseFormId(formArg);
  const format = o.format.trim().toLowerCase();
  if (format !== 'csv' && format !== 'json') {
    throw new UsageError(`--format must be csv or json; got '${o.format}'.`);
  }
  const api = await formsApi(ctx, o);
  // The server checks since and until and names the bad one (docs/forms.md#submissions).
  const call = {
    query: { format, since: o.since, until: o.until },
    signal: ctx.interrupted(),
  };
  const path = api.formPath(form, '/submissions/export');
  if (toStdout(o.output)) {
    if (ctx.stdoutIsTty) {
      // A terminal shows the text; an answer's escape sequences must not drive it.
      const answer = await onForm(api, form, () => api.client.send('GET', path, undefined, call));
      ctx.stdout.write(terminalSafe(ctx, answer.body.toString('utf8')));
      return;
    }
    await onForm(api, form, () => api.client.download(path, { sink: ctx.stdoutStream }, call));
    return;
  }
  await onForm(api, form, () => api.client.download(path, { file: o.output }, call));
  ctx.stderr.write(`Exported ${api.org}/${form} to ${o.output}.\n`);
}
