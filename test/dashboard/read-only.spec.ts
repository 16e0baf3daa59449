import { expect, expectAccessible, test } from './harness';

test.use({ serverEnv: { VEXIL_SERVER_MODE: 'read-only' } });

test('in read-only mode every editing control is disabled, with the reason shown', async ({
  page,
  api,
}) => {
  const info = await api.get<{ storage: { readOnly?: boolean } }>('/meta/info');
  expect(info.storage.readOnly).toBe(true);
  await page.goto('/namespaces/default/flags');
  await expect(page.getByRole('note')).toContainText('server.mode set to read-only');
  await expect(page.getByRole('button', { name: 'New flag' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Create your first flag' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'New flag' })).toHaveAttribute(
    'title',
    /read-only/,
  );
  await page.goto('/namespaces/default/segments');
  await expect(page.getByRole('button', { name: 'New segment' })).toBeDisabled();
  await page.goto('/namespaces');
  await expect(page.getByRole('button', { name: 'New namespace' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Edit namespace default' })).toBeDisabled();
  await expectAccessible(page, 'a read-only page');
});
