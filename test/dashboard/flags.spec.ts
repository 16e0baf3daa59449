import { expect, expectAccessible, fieldError, test } from './harness';
// better-sqlite3 ships no types; the two calls used here are typed by hand.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Database = require('better-sqlite3') as new (path: string) => {
  pragma(text: string): unknown;
  prepare(sql: string): { run(): unknown };
  close(): void;
};

test.describe.configure({ mode: 'serial' });

test('an empty namespace says so and offers to create the first flag', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/namespaces\/default\/flags$/);
  await expect(page.getByRole('heading', { name: 'No flags yet' })).toBeVisible();
  await expectAccessible(page, 'the empty flags page');
});

test('creates a boolean flag, and shows a duplicate key next to the key field', async ({
  page,
  api,
}) => {
  await page.goto('/namespaces/default/flags');
  await page.getByRole('button', { name: 'Create your first flag' }).click();
  const dialog = page.getByRole('dialog', { name: 'New flag' });
  await dialog.getByLabel('Name').fill('New checkout');
  await expect(dialog.getByLabel('Key')).toHaveValue('new-checkout');
  await dialog.getByRole('button', { name: 'Create flag' }).click();
  await expect(page).toHaveURL(/\/flags\/new-checkout$/);
  await expect(page.getByRole('heading', { name: /New checkout/ })).toBeVisible();
  const stored = await api.get<{ type: string; enabled: boolean }>(
    '/api/v1/namespaces/default/flags/new-checkout',
  );
  expect(stored).toMatchObject({ type: 'BOOLEAN_FLAG_TYPE', enabled: false });

  await page.goto('/namespaces/default/flags');
  await page.getByRole('button', { name: 'New flag' }).click();
  const again = page.getByRole('dialog', { name: 'New flag' });
  await again.getByLabel('Name').fill('New checkout');
  await again.getByRole('button', { name: 'Create flag' }).click();
  await expect(fieldError(again, 'Key')).toHaveText('flag "default/new-checkout" is not unique');
  await again.getByLabel('Key').fill('bad key!');
  await again.getByRole('button', { name: 'Create flag' }).click();
  await expect(fieldError(again, 'Key')).toContainText('letters, digits');
  await expectAccessible(page, 'the new flag dialog');
});

test('enables a flag in one click from the list, and edits it', async ({ page, api }) => {
  await page.goto('/namespaces/default/flags');
  await page.getByRole('switch', { name: 'Enable new-checkout' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'new-checkout enabled' })).toBeVisible();
  await expect
    .poll(
      async () =>
        (await api.get<{ enabled: boolean }>('/api/v1/namespaces/default/flags/new-checkout'))
          .enabled,
    )
    .toBe(true);

  await page.getByRole('link', { name: 'New checkout' }).click();
  await page.getByLabel('Description').fill('The one-page checkout');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('Flag saved')).toBeVisible();
  const flag = await api.get<{ description: string; enabled: boolean }>(
    '/api/v1/namespaces/default/flags/new-checkout',
  );
  expect(flag).toMatchObject({ description: 'The one-page checkout', enabled: true });
  await expectAccessible(page, 'a boolean flag');
});

test('a variant flag: variants with a JSON attachment and a default variant', async ({
  page,
  api,
}) => {
  await api.flag('default', 'theme', 'VARIANT_FLAG_TYPE', { enabled: true });
  await page.goto('/namespaces/default/flags/theme');
  await page.getByRole('button', { name: 'Add variant' }).click();
  const dialog = page.getByRole('dialog', { name: 'New variant' });
  await dialog.getByLabel('Key').fill('blue');
  // The code editor loads on demand.
  const editor = dialog.locator('.cm-content');
  await editor.fill('{"color": "blue",');
  await dialog.getByRole('button', { name: 'Add variant' }).click();
  await expect(fieldError(dialog, 'Attachment (JSON)')).toContainText('Not valid JSON');
  await editor.fill('{"color": "blue"}');
  await dialog.getByRole('button', { name: 'Add variant' }).click();
  await expect(dialog).toBeHidden();
  await page.getByRole('button', { name: 'Add variant' }).click();
  await page.getByRole('dialog', { name: 'New variant' }).getByLabel('Key').fill('green');
  await page
    .getByRole('dialog', { name: 'New variant' })
    .getByRole('button', { name: 'Add variant' })
    .click();
  await expect(page.getByRole('dialog')).toBeHidden();

  await page.getByLabel('Default variant').selectOption({ label: 'green' });
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('default', { exact: true })).toBeVisible();
  const flag = await api.get<{
    variants: { key: string; attachment: string }[];
    defaultVariant?: { key: string };
  }>('/api/v1/namespaces/default/flags/theme');
  expect(flag.variants.map((v) => [v.key, v.attachment])).toEqual([
    ['blue', '{"color":"blue"}'],
    ['green', ''],
  ]);
  expect(flag.defaultVariant?.key).toBe('green');
  await expectAccessible(page, 'a variant flag');
});

test('deletes a flag only after confirming', async ({ page, api }) => {
  await api.flag('default', 'doomed');
  await page.goto('/namespaces/default/flags/doomed');
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete flag doomed?' });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await api.get('/api/v1/namespaces/default/flags/doomed');
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('button', { name: 'Delete flag' }).click();
  await expect(page).toHaveURL(/\/namespaces\/default\/flags$/);
  await expect(api.get('/api/v1/namespaces/default/flags/doomed')).rejects.toThrow(/404/);
});

test('searches, sorts and pages through 10,000 flags', async ({ page, api, dbPath }) => {
  // Seeded straight into the database: ten thousand API calls would take minutes here.
  await api.post('/api/v1/namespaces', { key: 'big', name: 'Big' });
  await api.flag('big', 'seed');
  const db = new Database(dbPath);
  db.pragma('busy_timeout = 10000');
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 9999)
     INSERT INTO flags (namespace_key, "key", name, description, enabled, type, created_at, updated_at)
     SELECT 'big', 'flag-' || i, 'Flag number ' || i, '', i % 2, 1, f.created_at, f.updated_at
     FROM n, flags f WHERE f.namespace_key = 'big' AND f."key" = 'seed'`,
  ).run();
  db.close();

  await page.goto('/namespaces/big/flags');
  await expect(page.getByText('10,000 flags in big')).toBeVisible();
  await expect(page.getByText('1–50 of 10,000')).toBeVisible();
  const rows = page.locator('tbody tr');
  await expect(rows).toHaveCount(50);
  await expect(rows.first()).toContainText('flag-1');

  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText('51–100 of 10,000')).toBeVisible();
  await expect(rows.first()).toContainText('flag-51');

  await page.getByRole('searchbox', { name: /search flags/i }).fill('number 9999');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('flag-9999');
  await page.getByRole('searchbox', { name: /search flags/i }).fill('flag-99');
  await expect(page.getByText('1–50 of 111')).toBeVisible();

  await page.getByRole('searchbox', { name: /search flags/i }).fill('');
  await page.getByRole('button', { name: 'Flag', exact: true }).click();
  await expect(rows.first()).toContainText('seed');
  await expect(page.getByRole('columnheader', { name: 'Flag', exact: true })).toHaveAttribute(
    'aria-sort',
    'descending',
  );
});
