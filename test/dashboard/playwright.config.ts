import { defineConfig } from '@playwright/test';

/**
 * The dashboard's end-to-end tests: Debian's Chromium (Playwright's own browser download is
 * not used) against real Vexil processes built by `npm run build`. Each file starts its own
 * server on a fresh SQLite file.
 */
export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: '../../test-results/dashboard',
  // Two shared cores: one browser at a time keeps timings sane.
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    colorScheme: 'light',
    actionTimeout: 10_000,
    trace: 'off',
    launchOptions: {
      executablePath: process.env.VEXIL_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    },
  },
});
