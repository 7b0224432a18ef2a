// Dragging in the visual builder as a person does, for the UI tests.
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * A real mouse drag (button down, moves, button up: Chromium's own drag and drop) of the card at
 * `index` by its heading onto the bottom of the card above it, both on screen as a person would
 * have them (a drag to a point off screen is not one a person can make).
 */
export async function dragOntoCardAbove(page: Page, index: number): Promise<void> {
  const head = page.locator('.builder-card-head').nth(index);
  await head.evaluate((el) => {
    el.scrollIntoView({ block: 'center' });
  });
  const from = (await head.boundingBox())!;
  const above = (await page
    .locator('.builder-card')
    .nth(index - 1)
    .boundingBox())!;
  const x = from.x + from.width / 2;
  const y = from.y + from.height / 2;
  const to = above.y + above.height - 12;
  expect(to).toBeGreaterThan(0);
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x, y - 10, { steps: 3 });
  await page.mouse.move(x, to, { steps: 5 });
  await page.mouse.up();
}
