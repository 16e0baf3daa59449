import { expect, expectAccessible, signIn, test } from './harness';

const ADMIN = 'e2e-admin-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

test.describe.configure({ mode: 'serial' });
test.use({
  serverEnv: {
    VEXIL_AUTHENTICATION_REQUIRED: 'true',
    VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
    VEXIL_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: ADMIN,
  },
});

test('asks for a token, refuses a wrong one, signs in into an HttpOnly cookie', async ({
  page,
  context,
}) => {
  await page.goto('/namespaces/default/flags');
  await expect(page).toHaveURL(/\/login\?next=/);
  await expectAccessible(page, 'the sign-in page');
  await page.getByLabel('Client token').fill('not-a-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('This token is not valid');

  await page.getByLabel('Client token').fill(ADMIN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/namespaces\/default\/flags$/);
  const [cookie] = (await context.cookies()).filter((c) => c.name === 'flipt_client_token');
  expect(cookie).toMatchObject({ value: ADMIN, httpOnly: true, sameSite: 'Strict' });
  // The page itself cannot read it.
  expect(await page.evaluate<string>('document.cookie')).not.toContain(ADMIN);
});

test('writes from the dashboard carry the CSRF token; a forged write without it is refused', async ({
  page,
  api,
}) => {
  await signIn(page, ADMIN);
  await page.getByRole('button', { name: 'Create your first flag' }).click();
  await page.getByRole('dialog').getByLabel('Name').fill('Signed in');
  await page.getByRole('dialog').getByRole('button', { name: 'Create flag' }).click();
  await expect(page).toHaveURL(/\/flags\/signed-in$/);
  await api.get('/api/v1/namespaces/default/flags/signed-in');

  const forged = await page.evaluate(async () => {
    const res = await fetch('/api/v1/namespaces/default/flags', {
      method: 'POST',
      body: JSON.stringify({ key: 'forged', name: 'forged' }),
    });
    return { status: res.status, body: await res.text() };
  });
  expect(forged.status).toBe(403);
  expect(forged.body).toContain('CSRF');
  await expect(api.get('/api/v1/namespaces/default/flags/forged')).rejects.toThrow(/404/);
});

test('a namespace-scoped token sees only its namespace, and tokens show their secret once', async ({
  page,
  api,
  browser,
  server,
}) => {
  await api.post('/api/v1/namespaces', { key: 'team-a', name: 'Team A' });
  await api.flag('team-a', 'team-flag');
  await signIn(page, ADMIN);
  await page.goto('/tokens');
  await expect(page.getByText('initial_bootstrap_token')).toBeVisible();
  await page.getByRole('button', { name: 'New token' }).click();
  const dialog = page.getByRole('dialog', { name: 'New client token' });
  await dialog.getByLabel('Name', { exact: true }).fill('team-a dashboard');
  await dialog.getByLabel('Namespace').selectOption('team-a');
  await dialog.getByRole('button', { name: 'Create token' }).click();
  const secretBox = page.getByRole('dialog', { name: 'Token created' });
  await expect(secretBox.getByText('shown only once')).toBeVisible();
  await expect(secretBox.getByRole('button', { name: 'Copy' })).toBeVisible();
  const secret = (await secretBox.getByLabel('Client token').textContent()) ?? '';
  expect(secret).toHaveLength(44);
  await expectAccessible(page, 'the new token secret');
  await secretBox.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('row', { name: /team-a dashboard/ })).toBeVisible();
  await expect(page.getByText(secret)).toHaveCount(0);

  const scopedContext = await browser.newContext({ baseURL: server.baseUrl });
  const scoped = await scopedContext.newPage();
  await scoped.goto('/');
  await scoped.getByLabel('Client token').fill(secret);
  await scoped.getByRole('button', { name: 'Sign in' }).click();
  await expect(scoped).toHaveURL(/\/namespaces\/team-a\/flags$/);
  await expect(scoped.getByRole('link', { name: 'team-flag' })).toBeVisible();
  await expect(scoped.getByRole('link', { name: 'Namespaces' })).toHaveCount(0);
  await expect(scoped.getByRole('link', { name: 'Client tokens' })).toHaveCount(0);
  await scoped.goto('/namespaces/default/flags');
  await expect(scoped.getByRole('alert')).toContainText('limited to the namespace team-a');
  await scopedContext.close();

  await page.getByRole('button', { name: 'Delete token team-a dashboard' }).click();
  await page.getByRole('button', { name: 'Delete token' }).click();
  await expect(page.getByRole('row', { name: /team-a dashboard/ })).toHaveCount(0);
});

test('an expired session sends the person back to sign in, and sign-out ends it', async ({
  page,
  api,
}) => {
  const { clientToken, authentication } = await api.post<{
    clientToken: string;
    authentication: { id: string };
  }>('/auth/v1/method/token', { name: 'short-lived' });
  await page.goto('/login');
  await page.getByLabel('Client token').fill(clientToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/namespaces\/default\/flags$/);

  // Everything on the page has loaded before the token goes away.
  await expect(page.getByText(/\d+ flags? in default/)).toBeVisible();
  await expect(page.getByRole('button', { name: /Namespace/ })).toContainText('Default');
  await api.del(`/auth/v1/tokens/${authentication.id}`);
  await page.getByRole('link', { name: 'Segments' }).click();
  await expect(page.getByText('Your session has expired')).toBeVisible();
  await expect(page).toHaveURL(/\/login\?/);

  await page.getByLabel('Client token').fill(ADMIN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/segments$/);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login\?signedOut=1/);
  await page.goto('/namespaces/default/flags');
  await expect(page).toHaveURL(/\/login\?next=/);
});
