import { expect, expectAccessible, fieldError, test } from './harness';

test.describe.configure({ mode: 'serial' });

test('namespaces: create, switch, edit, and the flags-first rule on delete', async ({
  page,
  api,
}) => {
  await page.goto('/namespaces');
  await page.getByRole('button', { name: 'New namespace' }).click();
  const dialog = page.getByRole('dialog', { name: 'New namespace' });
  await dialog.getByLabel('Name').fill('Mobile app');
  await expect(dialog.getByLabel('Key')).toHaveValue('mobile-app');
  await dialog.getByRole('button', { name: 'Create namespace' }).click();
  await expect(page.getByRole('link', { name: 'Mobile app' })).toBeVisible();
  await expectAccessible(page, 'the namespaces page');

  await page.getByRole('button', { name: 'Edit namespace mobile-app' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit namespace mobile-app' });
  await edit.getByLabel('Description').fill('iOS and Android');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('iOS and Android')).toBeVisible();

  await api.flag('mobile-app', 'dark-mode');
  await page.getByRole('button', { name: 'Delete namespace mobile-app' }).click();
  const confirm = page.getByRole('alertdialog');
  await confirm.getByRole('button', { name: 'Delete namespace' }).click();
  await expect(confirm.getByRole('alert')).toHaveText(
    'namespace "mobile-app" cannot be deleted; flags must be deleted first',
  );
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('button', { name: 'Delete namespace default' })).toBeDisabled();

  // The switcher moves to the same page of the other namespace.
  await page.goto('/namespaces/default/flags');
  await page.getByRole('button', { name: /Namespace/ }).click();
  await page.getByRole('menuitemradio', { name: /Mobile app/ }).click();
  await expect(page).toHaveURL(/\/namespaces\/mobile-app\/flags$/);
  await expect(page.getByRole('link', { name: 'dark-mode' })).toBeVisible();
});

test('segments: every constraint type with a suitable input', async ({ page, api }) => {
  await page.goto('/namespaces/default/segments');
  await expect(page.getByRole('heading', { name: 'No segments yet' })).toBeVisible();
  await page.getByRole('button', { name: 'Create a segment' }).click();
  const dialog = page.getByRole('dialog', { name: 'New segment' });
  await dialog.getByLabel('Name').fill('Beta testers');
  await dialog.getByLabel('Any constraint passes').check();
  await dialog.getByRole('button', { name: 'Create segment' }).click();
  await expect(page).toHaveURL(/\/segments\/beta-testers$/);

  const add = async (
    type: string,
    property: string,
    operator: string,
    fillValue?: () => Promise<void>,
  ) => {
    await page.getByRole('button', { name: 'Add constraint' }).click();
    const d = page.getByRole('dialog', { name: 'New constraint' });
    await d.getByLabel('Type').selectOption({ label: type });
    if (type !== 'Entity ID') await d.getByLabel('Property').fill(property);
    await d.getByLabel('Operator').selectOption({ label: operator });
    await fillValue?.();
    await d.getByRole('button', { name: 'Add constraint' }).click();
    await expect(d).toBeHidden();
  };
  const d = () => page.getByRole('dialog', { name: 'New constraint' });
  await add('String', 'plan', 'is one of', async () => {
    const list = d().getByLabel('Values');
    await list.fill('pro');
    await list.press('Enter');
    await list.fill('team,');
  });
  await add('Number', 'age', '>=', () => d().getByLabel('Value').fill('18'));
  await add('Boolean', 'beta', 'is true');
  await add('Date-time', 'signup', 'is after', () =>
    d().getByLabel('Date and time').fill('2024-05-01T10:30'),
  );
  await add('Entity ID', 'entityId', '==', () => d().getByLabel('Value').fill('user-1'));

  const segment = await api.get<{
    matchType: string;
    constraints: { type: string; operator: string; value: string }[];
  }>('/api/v1/namespaces/default/segments/beta-testers');
  expect(segment.matchType).toBe('ANY_MATCH_TYPE');
  expect(segment.constraints.map((c) => [c.type, c.operator])).toEqual([
    ['STRING_COMPARISON_TYPE', 'isoneof'],
    ['NUMBER_COMPARISON_TYPE', 'gte'],
    ['BOOLEAN_COMPARISON_TYPE', 'true'],
    ['DATETIME_COMPARISON_TYPE', 'gt'],
    ['ENTITY_ID_COMPARISON_TYPE', 'eq'],
  ]);
  expect(segment.constraints[0]?.value).toBe('["pro","team"]');
  expect(segment.constraints[3]?.value).toMatch(/^2024-05-01T\d\d:30:00Z$/);
  await expect(page.getByText('plan is one of pro, team')).toBeVisible();
  await expectAccessible(page, 'a segment');
});

test('an invalid constraint value: caught in the form, and refused by the API beside the field', async ({
  page,
}) => {
  await page.goto('/namespaces/default/segments/beta-testers');
  await page.getByRole('button', { name: 'Add constraint' }).click();
  const d = page.getByRole('dialog', { name: 'New constraint' });
  await d.getByLabel('Type').selectOption({ label: 'Number' });
  await d.getByLabel('Property').fill('age');
  await d.getByLabel('Value').fill('eighteen');
  await d.getByRole('button', { name: 'Add constraint' }).click();
  await expect(fieldError(d, 'Value')).toHaveText('Enter a number.');

  // February 30th looks like a date to a browser but not to the API.
  await d.getByLabel('Type').selectOption({ label: 'Date-time' });
  await d.getByLabel('Property').fill('signup');
  await d.getByRole('button', { name: 'Type it instead' }).click();
  await d.getByLabel('Date and time').fill('2024-02-30');
  await d.getByRole('button', { name: 'Add constraint' }).click();
  await expect(fieldError(d, 'Date and time')).toContainText('2024-02-30');
  await expectAccessible(page, 'the constraint dialog with an error');
});

test('a segment in use cannot be deleted, and the dialog says why', async ({ page, api }) => {
  await api.flag('default', 'gated', 'BOOLEAN_FLAG_TYPE');
  await api.post('/api/v1/namespaces/default/flags/gated/rollouts', {
    rank: 1,
    segment: { segmentKey: 'beta-testers', value: true },
  });
  await page.goto('/namespaces/default/segments/beta-testers');
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('button', { name: 'Delete segment' }).click();
  await expect(page.getByRole('alertdialog').getByRole('alert')).toHaveText(
    'segment "default/beta-testers" is in use',
  );
});
