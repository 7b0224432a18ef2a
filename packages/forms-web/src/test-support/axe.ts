// axe-core (from npm) run in the page under test: the serious and critical violations, as
// "rule: targets" lines, so a test can expect an empty list.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

interface AxeResult {
  violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
}

export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated by the test driver rather than added as a <script>: the inbox's policy refuses
  // inline script (docs/forms.md#page-headers), and a test must not need it relaxed.
  await page.evaluate(`${axeSource};void 0`);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document) => Promise<AxeResult> } }).axe;
    const result = await axe.run(document);
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}
