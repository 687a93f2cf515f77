import { defineConfig } from '@playwright/test';

// End-to-end tests: the built renderer (out/renderer) in the system Chromium, bridged to the
// real Api in the test process (tests/e2e/harness.ts). Playwright cannot download browsers
// in this environment, so the Debian chromium is used; override with CHROMIUM_PATH.
export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results',
  reporter: 'list',
  retries: 0,
  workers: 1,
  // Safety nets for a broken build, not speeds the tests rely on: every step waits on what the
  // user would see, and a busy machine (CI under load) only makes the waits longer.
  timeout: 600_000,
  expect: { timeout: 120_000 },
  use: {
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
    trace: 'retain-on-failure',
  },
});
