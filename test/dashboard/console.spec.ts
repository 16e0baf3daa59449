import { expect, expectAccessible, screenshot, test } from './harness';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ api }) => {
  await api.segment('default', 'pro-users', [
    { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro' },
    { type: 'NUMBER_COMPARISON_TYPE', property: 'seats', operator: 'gte', value: '5' },
  ]);
  await api.flag('default', 'new-pricing', 'VARIANT_FLAG_TYPE', {
    enabled: true,
    name: 'New pricing page',
  });
  const a = await api.post<{ id: string }>(
    '/api/v1/namespaces/default/flags/new-pricing/variants',
    {
      key: 'annual-first',
      attachment: '{"discount": 20}',
    },
  );
  const b = await api.post<{ id: string }>(
    '/api/v1/namespaces/default/flags/new-pricing/variants',
    {
      key: 'monthly-first',
    },
  );
  const rule = await api.post<{ id: string }>(
    '/api/v1/namespaces/default/flags/new-pricing/rules',
    {
      segmentKey: 'pro-users',
      rank: 1,
    },
  );
  for (const [variantId, rollout] of [
    [a.id, 50],
    [b.id, 50],
  ] as const) {
    await api.post(`/api/v1/namespaces/default/flags/new-pricing/rules/${rule.id}/distributions`, {
      variantId,
      rollout,
    });
  }
  await api.flag('default', 'dark-mode', 'BOOLEAN_FLAG_TYPE', {
    enabled: false,
    name: 'Dark mode',
  });
  await api.post('/api/v1/namespaces/default/flags/dark-mode/rollouts', {
    rank: 1,
    threshold: { percentage: 40, value: true },
  });
});

test('explains a variant result, which is exactly what the evaluation API answers', async ({
  page,
  api,
}) => {
  await page.goto('/namespaces/default/console');
  await expect(page.getByRole('heading', { name: 'Nothing evaluated yet' })).toBeVisible();
  await page.getByLabel('Flag', { exact: true }).fill('new-pricing');
  await page.getByLabel('Entity ID').fill('user-42');
  await page.getByLabel('Context key 1').fill('plan');
  await page.getByLabel('Context value 1').fill('pro');
  await page.getByRole('button', { name: 'Add property' }).click();
  await page.getByLabel('Context key 2').fill('seats');
  await page.getByLabel('Context value 2').fill('3');
  await page.getByRole('button', { name: 'Evaluate' }).click();

  await expect(page.getByText('No rule matched and no default variant')).toBeVisible();
  await expect(page.locator('.trace-cons li').filter({ hasText: 'seats >= 5' })).toContainText(
    '(seats is "3")',
  );
  await expect(
    page.locator('.trace-cons li').filter({ hasText: 'seats >= 5' }).getByLabel('failed'),
  ).toBeVisible();
  await expect(
    page.locator('.trace-cons li').filter({ hasText: 'plan == pro' }).getByLabel('passed'),
  ).toBeVisible();

  await page.getByRole('tab', { name: 'JSON' }).click();
  const json = page.getByLabel('Context as JSON');
  await expect(json).toHaveValue(/"seats": "3"/);
  await json.fill('{"plan": "pro", "seats": 12}');
  await page.getByLabel('Entity ID').press('Control+Enter');
  const summary = page.locator('.stack > p').first();
  await expect(summary).toContainText('Rule 1 matched');

  const shown = JSON.parse((await page.locator('pre.code').textContent()) ?? '{}') as Record<
    string,
    unknown
  >;
  const real = await api.post<Record<string, unknown>>('/evaluate/v1/variant', {
    flagKey: 'new-pricing',
    entityId: 'user-42',
    context: { plan: 'pro', seats: '12' },
  });
  const strip = ({
    requestId: _a,
    requestDurationMillis: _b,
    timestamp: _c,
    ...rest
  }: Record<string, unknown>) => rest;
  expect(strip(shown)).toEqual(strip(real));
  await expect(summary).toContainText(`variant ${String(real['variantKey'])}`);
  await expectAccessible(page, 'the evaluation console');
  await screenshot(page, 'evaluation-console');
});

test('explains a threshold rollout with the bucket, and refuses malformed context', async ({
  page,
  api,
}) => {
  await page.goto('/namespaces/default/console?flag=dark-mode&entity=user-7');
  const real = await api.post<{ enabled: boolean }>('/evaluate/v1/boolean', {
    flagKey: 'dark-mode',
    entityId: 'user-7',
    context: {},
  });
  await expect(page.locator('.result-value')).toHaveText(String(real.enabled));
  await expect(page.getByText(/bucket is \d+ of 100/)).toBeVisible();

  await page.getByRole('tab', { name: 'JSON' }).click();
  await page.getByLabel('Context as JSON').fill('{"nested": {"a": 1}}');
  await page.getByRole('button', { name: 'Evaluate' }).click();
  await expect(page.getByRole('alert')).toHaveText('"nested" must be a string, number or boolean.');

  await page.getByLabel('Flag', { exact: true }).fill('no-such-flag');
  await page.getByLabel('Context as JSON').fill('{}');
  await page.getByRole('button', { name: 'Evaluate' }).click();
  await expect(page.getByRole('alert')).toHaveText('flag "default/no-such-flag" not found');
});

test('the flags page at phone width and on a large monitor', async ({ page, api }) => {
  const more: [string, string, boolean][] = [
    ['checkout-redesign', 'Checkout redesign', true],
    ['search-autocomplete', 'Search autocomplete', true],
    ['beta-reports', 'Beta reports', false],
    ['holiday-banner', 'Holiday banner', false],
  ];
  for (const [key, name, enabled] of more)
    await api.flag('default', key, 'BOOLEAN_FLAG_TYPE', { name, enabled });
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/namespaces/default/flags');
  await expect(page.getByRole('link', { name: 'New pricing page' })).toBeVisible();
  await screenshot(page, 'flags');

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.getByRole('navigation', { name: 'Namespace' })).not.toBeInViewport();
  await page.getByRole('button', { name: 'Open navigation' }).click();
  await page.getByRole('link', { name: 'Segments' }).click();
  await expect(page).toHaveURL(/\/segments$/);
  const width = await page.evaluate<number>('document.documentElement.scrollWidth');
  expect(width).toBeLessThanOrEqual(390);

  await page.setViewportSize({ width: 2560, height: 1440 });
  await page.goto('/namespaces/default/flags');
  await expect(page.getByRole('navigation', { name: 'Namespace' })).toBeInViewport();
});

test('dark mode follows the system setting', async ({ browser, server }) => {
  const context = await browser.newContext({ colorScheme: 'dark', baseURL: server.baseUrl });
  const dark = await context.newPage();
  await dark.goto('/namespaces/default/flags');
  await expect(dark.getByRole('link', { name: 'Dark mode' })).toBeVisible();
  const background = await dark.evaluate<string>('getComputedStyle(document.body).backgroundColor');
  expect(background).toBe('rgb(18, 19, 24)');
  await expectAccessible(dark, 'the flags page in dark mode');
  await context.close();
});
