import { expect, test } from './harness';

/** What the first page may cost in JavaScript and CSS, as transferred (compressed). */
const FIRST_PAGE_BUDGET_BYTES = 350 * 1024;

test('the first page transfers under 350 KB of JavaScript and CSS, compressed', async ({
  page,
}) => {
  const scripts: { url: string; bytes: number; encoding: string | undefined }[] = [];
  page.on('requestfinished', (request) => {
    const type = request.resourceType();
    if (type !== 'script' && type !== 'stylesheet') return;
    void (async () => {
      const [sizes, response] = await Promise.all([request.sizes(), request.response()]);
      const encoding = (await response?.allHeaders())?.['content-encoding'];
      scripts.push({ url: request.url(), bytes: sizes.responseBodySize, encoding });
    })();
  });
  await page.goto('/namespaces/default/flags');
  await expect(page.getByRole('heading', { name: 'Flags', exact: true })).toBeVisible();
  await page.waitForLoadState('networkidle');

  const total = scripts.reduce((sum, s) => sum + s.bytes, 0);
  console.log(
    `first page: ${scripts.length} JS/CSS files, ${(total / 1024).toFixed(1)} KB transferred ` +
      `(budget ${FIRST_PAGE_BUDGET_BYTES / 1024} KB)`,
  );
  expect(scripts.length).toBeGreaterThan(0);
  // Served compressed: the budget is about what crosses the network.
  for (const s of scripts) expect(['br', 'gzip']).toContain(s.encoding);
  expect(total).toBeLessThan(FIRST_PAGE_BUDGET_BYTES);
});
