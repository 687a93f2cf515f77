import { studioTestsMissing, withStudioServer } from '../helpers/studio';
import { expect, test } from './harness';

// Settings › Spending in a studio replica: the caps the studio's admin set apply to every
// machine together, so the panel shows those (not this machine's own), says who sets them, and
// keeps this machine's own caps for the day the library leaves. A real studio server on a real
// PostgreSQL, the real OS keychain.

test('Settings › Spending shows the studio’s caps, set by its admin, while the library is a studio replica', async ({ launchApp }) => {
  const missing = await studioTestsMissing('the studio caps e2e test', { keychain: true });
  test.skip(missing !== null, `studio e2e skipped: ${missing}`);

  await withStudioServer(
    [{ name: 'ana', role: 'editor', password: 'ana-secret-1' }],
    async (server) => {
        const app = await launchApp();
        const { page } = app;
        await app.api.setCaps({ caps: { dailyCalls: 40, monthlyCalls: 900, pricePerCall: {} } });
        await app.api.studioJoin({ url: server.url, user: 'ana', password: 'ana-secret-1', fingerprint: server.fingerprint });

        await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
        await page.getByTestId('nav-settings').click();
        const card = page.getByTestId('settings-caps');
        await expect(card.getByTestId('caps-studio-note')).toContainText('studio “Studio Nord”');
        await expect(card.getByTestId('caps-studio-note')).toContainText('set by the studio’s admin');
        await expect(card.getByTestId('caps-dailyCalls')).toHaveValue('500');
        await expect(card.getByTestId('caps-dailyCalls')).toBeDisabled();
        await expect(card.getByTestId('caps-monthlyCalls')).toHaveValue('8000');
        await expect(card.getByTestId('caps-monthlyCalls')).toBeDisabled();
        // The speed limit and prices stay this machine's: saving them keeps its own caps for later.
        await card.getByTestId('caps-accountRatePerSecond').fill('20');
        await card.getByTestId('caps-save').click();
        await expect(card.getByTestId('caps-saved')).toBeVisible();
        await expect(card.getByTestId('caps-dailyCalls')).toHaveValue('500');
        expect(await app.api.getCaps()).toMatchObject({ dailyCalls: 40, monthlyCalls: 900, accountRatePerSecond: 20, studio: { name: 'Studio Nord', admin: false, dailyCalls: 500, monthlyCalls: 8000 } });

        // Leaving the studio: this machine's own caps show again.
        await app.api.studioLeave();
        await page.getByTestId('nav-library').click();
        await page.getByTestId('nav-settings').click();
        await expect(card.getByTestId('caps-dailyCalls')).toHaveValue('40');
        await expect(card.getByTestId('caps-dailyCalls')).toBeEnabled();
        await expect(card.getByTestId('caps-studio-note')).toHaveCount(0);
    },
    // The admin's caps for the whole studio (as `tagsmith studio caps --daily-calls 500 --monthly-calls 8000` sets them).
    (store) => store.pool.query("INSERT INTO settings (key, value) VALUES ('caps', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [JSON.stringify({ dailyCalls: 500, monthlyCalls: 8000 })]).then(() => undefined),
  );
});
