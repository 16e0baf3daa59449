import { expect, expectAccessible, test } from './harness';

test.describe.configure({ mode: 'serial' });

interface RuleJson {
  id: string;
  segmentKey: string;
  segmentKeys: string[];
  segmentOperator: string;
  distributions: { variantId: string; rollout: number }[];
}

test.beforeAll(async ({ api }) => {
  await api.segment('default', 'internal', [
    {
      type: 'STRING_COMPARISON_TYPE',
      property: 'email',
      operator: 'suffix',
      value: '@example.com',
    },
  ]);
  await api.segment('default', 'europe', [
    { type: 'STRING_COMPARISON_TYPE', property: 'region', operator: 'eq', value: 'eu' },
  ]);
  await api.flag('default', 'checkout', 'VARIANT_FLAG_TYPE', { enabled: true });
  for (const key of ['control', 'treatment']) {
    await api.post('/api/v1/namespaces/default/flags/checkout/variants', { key });
  }
  await api.flag('default', 'banner', 'BOOLEAN_FLAG_TYPE', { enabled: true });
});

const rulesOf = (api: { get: <T>(p: string) => Promise<T> }) =>
  api
    .get<{ rules: RuleJson[] }>('/api/v1/namespaces/default/flags/checkout/rules')
    .then((r) => r.rules);

test('a rule on two segments with AND, and a distribution whose sum is shown', async ({
  page,
  api,
}) => {
  await page.goto('/namespaces/default/flags/checkout');
  await page.getByRole('button', { name: 'Add rule' }).click();
  const dialog = page.getByRole('dialog', { name: 'New rule' });
  await dialog.getByRole('checkbox', { name: /internal/ }).check();
  await dialog.getByRole('checkbox', { name: /europe/ }).check();
  await dialog.getByLabel('all segments (AND)').check();
  await dialog.getByLabel('Percentage for control').fill('60');
  await dialog.getByLabel('Percentage for treatment').fill('50');
  await expect(dialog.getByText('110%', { exact: true })).toBeVisible();
  await dialog.getByRole('button', { name: 'Add rule' }).click();
  await expect(dialog.getByRole('alert')).toHaveText(
    'The percentages add up to 110%: at most 100% can be distributed.',
  );
  expect(await rulesOf(api)).toHaveLength(0);
  await expectAccessible(page, 'the rule dialog with an error');

  await dialog.getByLabel('Percentage for treatment').fill('40');
  await expect(dialog.getByText('100%', { exact: true })).toBeVisible();
  await dialog.getByRole('button', { name: 'Add rule' }).click();
  await expect(dialog).toBeHidden();
  const [rule] = await rulesOf(api);
  expect(rule).toMatchObject({
    segmentKeys: ['internal', 'europe'],
    segmentOperator: 'AND_SEGMENT_OPERATOR',
  });
  expect(rule?.distributions.map((d) => d.rollout)).toEqual([60, 40]);
  await expect(page.getByText('control 60%')).toBeVisible();
});

test('rules reorder by keyboard and by the move buttons', async ({ page, api }) => {
  await api.post('/api/v1/namespaces/default/flags/checkout/rules', {
    segmentKey: 'europe',
    rank: 2,
  });
  await page.goto('/namespaces/default/flags/checkout');
  const before = (await rulesOf(api)).map((r) => r.id);

  const handle = page.getByRole('button', { name: /^Reorder rule 1/ });
  await handle.focus();
  // dnd-kit measures between key presses: give each step a moment, as a person would.
  await page.keyboard.press('Space');
  await page.waitForTimeout(300);
  await page.keyboard.press('ArrowDown');
  await page.waitForTimeout(300);
  await page.keyboard.press('Space');
  await expect(page.getByRole('status').filter({ hasText: 'Rule order saved' })).toBeVisible();
  await expect
    .poll(async () => (await rulesOf(api)).map((r) => r.id))
    .toEqual([before[1], before[0]]);

  await page.getByRole('button', { name: 'Move rule 2 up' }).click();
  await expect.poll(async () => (await rulesOf(api)).map((r) => r.id)).toEqual(before);
  await expectAccessible(page, 'a variant flag with rules');
});

test('rollouts: a threshold and a segment rollout, reordered by dragging', async ({
  page,
  api,
}) => {
  await page.goto('/namespaces/default/flags/banner');
  await page.getByRole('button', { name: 'Add rollout' }).click();
  let dialog = page.getByRole('dialog', { name: 'New rollout' });
  await dialog.getByRole('spinbutton', { name: 'Percentage' }).fill('150');
  await dialog.getByRole('button', { name: 'Add rollout' }).click();
  await expect(dialog.getByText('Enter a percentage between 0 and 100.')).toBeVisible();
  await dialog.getByRole('spinbutton', { name: 'Percentage' }).fill('25');
  await dialog.getByLabel('false').check();
  await dialog.getByRole('button', { name: 'Add rollout' }).click();
  await expect(dialog).toBeHidden();

  await page.getByRole('button', { name: 'Add rollout' }).click();
  dialog = page.getByRole('dialog', { name: 'New rollout' });
  await dialog.getByLabel(/^Segment/).check();
  await dialog.getByRole('checkbox', { name: /internal/ }).check();
  await dialog.getByLabel('Description').fill('Staff see it first');
  await dialog.getByRole('button', { name: 'Add rollout' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Staff see it first')).toBeVisible();

  const order = async () =>
    (
      await api.get<{ rules: { type: string }[] }>(
        '/api/v1/namespaces/default/flags/banner/rollouts',
      )
    ).rules.map((r) => r.type);
  expect(await order()).toEqual(['THRESHOLD_ROLLOUT_TYPE', 'SEGMENT_ROLLOUT_TYPE']);

  const from = page.getByRole('button', { name: /^Reorder rollout 2/ });
  const to = page.getByRole('button', { name: /^Reorder rollout 1/ });
  const a = await from.boundingBox();
  const b = await to.boundingBox();
  if (!a || !b) throw new Error('drag handles not laid out');
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2, a.y - 10, { steps: 5 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2 - 5, { steps: 10 });
  await page.mouse.up();
  await expect.poll(order).toEqual(['SEGMENT_ROLLOUT_TYPE', 'THRESHOLD_ROLLOUT_TYPE']);
  await expectAccessible(page, 'a boolean flag with rollouts');
});

test('copies a flag with its rules to another namespace, segments included', async ({
  page,
  api,
}) => {
  await api.post('/api/v1/namespaces', { key: 'prod', name: 'Production' });
  await page.goto('/namespaces/default/flags/checkout');
  await page.getByRole('button', { name: 'Copy to…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Copy checkout to another namespace' });
  await dialog.getByRole('button', { name: 'Copy flag' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Choose a namespace.');
  await dialog.getByLabel('Target namespace').selectOption('prod');
  await dialog.getByRole('button', { name: 'Copy flag' }).click();
  await expect(page).toHaveURL(/\/namespaces\/prod\/flags\/checkout$/);
  await expect(page.getByText('control 60%')).toBeVisible();
  const segments = await api.get<{ segments: { key: string }[] }>(
    '/api/v1/namespaces/prod/segments',
  );
  expect(segments.segments.map((s) => s.key).sort()).toEqual(['europe', 'internal']);

  // A second copy finds the flag there and says so beside the field.
  await page.goto('/namespaces/default/flags/checkout');
  await page.getByRole('button', { name: 'Copy to…' }).click();
  const again = page.getByRole('dialog', { name: 'Copy checkout to another namespace' });
  await again.getByLabel('Target namespace').selectOption('prod');
  await again.getByRole('button', { name: 'Copy flag' }).click();
  await expect(again.getByRole('alert')).toHaveText('flag "prod/checkout" is not unique');
  await expectAccessible(page, 'the copy dialog');
});
