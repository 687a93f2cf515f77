import { recordSent } from '../../src-main/upload/sent-records';
import { lowContrast } from './contrast';
import { expect, test } from './harness';
import { makePhotoTree, PHOTOS, type TestPhoto } from './photos';
import { shot } from './shots';

// Issue 35, point 2: grid cells like Lightroom's. Badges for keywords, metadata not yet in the
// file, sent to an agency, flag and label; a compact info line (capture date · dimensions ·
// stars) the user can switch; thumbnails that fill the cell; long names shortened in the
// middle with the extension kept; secondary text at 4.5:1 or better, also on a selected cell.

const LONG = 'holiday-2023-portugal-lisbon-tram-28-alfama-final-edit.jpg';
const TREE: TestPhoto[] = [...PHOTOS, { file: LONG, colour: [200, 160, 60], make: 'Canon', model: 'Canon EOS R5', taken: '2020:06:01 09:00:00' }];

const cellOf = (name: string) => `[data-testid="grid-cell"][data-name="${name}"]`;

for (const viewport of [{ width: 1440, height: 900 }, { width: 1280, height: 800 }]) {
  test(`grid cells at ${viewport.width}×${viewport.height}: badges, the info line, filled thumbnails, names cut in the middle, contrast`, async ({ launchApp }) => {
    const app = await launchApp({ viewport });
    const { page, api } = app;
    await api.addFolder({ path: await makePhotoTree(TREE) });
    await expect(page.getByTestId('grid-cell')).toHaveCount(TREE.length);
    await expect.poll(async () => (await api.listFolders())[0]?.scanning).toBe(false);
    const ids = new Map<string, number>();
    for (const id of await api.searchIds({ query: {} })) ids.set((await api.getAsset({ id })).name, id);
    const beach = ids.get('beach-sunset.jpg')!;
    const lake = ids.get('mountain-lake.jpg')!;

    // Keywords and a caption on one photo, a flag and a label on another, one sent to Adobe Stock.
    await api.editKeywords({ ids: [beach], add: ['sunset', 'sea'] });
    await api.setCaption({ ids: [beach], caption: 'Sunset over the sea' });
    await api.setFlag({ ids: [lake], flag: 'reject' });
    await api.setLabel({ ids: [lake], label: 'red' });
    recordSent(app.ctx.db, lake, { agency: 'adobe', sentAt: Date.now(), remote: 'ftp://ftp.example.com/mountain-lake.jpg', size: 1000, contentHash: null });
    await page.reload();
    await expect(page.getByTestId('grid-cell')).toHaveCount(TREE.length);

    const beachCell = page.locator(cellOf('beach-sunset.jpg'));
    await expect(beachCell.getByTestId('cell-badge-keywords')).toHaveAttribute('data-count', '2');
    await expect(beachCell.getByTestId('cell-badge-unsaved')).toHaveAttribute('data-state', 'unsaved');
    await expect(beachCell.getByTestId('cell-badge-sent')).toHaveCount(0);
    const lakeCell = page.locator(cellOf('mountain-lake.jpg'));
    await expect(lakeCell.getByTestId('cell-badge-sent')).toHaveAttribute('data-agencies', 'adobe');
    await expect(lakeCell.getByTestId('cell-flag')).toHaveAttribute('data-flag', 'reject');
    await expect(lakeCell).toHaveAttribute('data-label', 'red');
    await expect(lakeCell.getByTestId('cell-badge-keywords')).toHaveCount(0);
    // The label goes into the file too: not there yet.
    await expect(lakeCell.getByTestId('cell-badge-unsaved')).toHaveCount(1);
    // A photo nothing was done to has no badge.
    await expect(page.locator(cellOf('red-door.jpg')).locator('.cell-state-badges .badge')).toHaveCount(0);

    // Written to the file: the "not yet in the file" badge goes.
    await beachCell.click();
    const written = await api.writeMetadata({ ids: [beach] });
    expect(written.map((r) => r.status)).toEqual(['written']);
    await expect(beachCell.getByTestId('cell-badge-unsaved')).toHaveCount(0);
    await expect(beachCell.getByTestId('cell-badge-keywords')).toHaveCount(1);

    // The info line: capture date · dimensions, and stars; switched to the file type, and kept.
    await api.setRating({ ids: [beach], rating: 3 });
    // The capture date in the system's one date format (ui/format.ts), the same as the panel's
    // Taken (which adds the time), not a format of the grid's own.
    const day = await page.evaluate(() => new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(Date.UTC(2023, 6, 14)));
    await expect(beachCell.getByTestId('cell-info')).toContainText(`${day} · 640×427`);
    const taken = page.locator('.meta-row').filter({ has: page.locator('dt', { hasText: /^Taken$/ }) }).locator('dd');
    await expect(taken).toContainText(day);
    expect((await taken.textContent())!.startsWith(day)).toBe(true);
    await expect(beachCell.getByTestId('cell-stars')).toHaveAttribute('data-rating', '3');
    await page.getByTestId('cell-info-toggle').click();
    await expect(beachCell.getByTestId('cell-info')).toHaveAttribute('data-info', 'type');
    await expect(beachCell.getByTestId('cell-info')).toContainText('JPEG');
    await expect.poll(async () => (await api.getViewState())['library.cellInfo']).toBe('type');
    await page.reload();
    await expect(page.locator(cellOf('beach-sunset.jpg')).getByTestId('cell-info')).toHaveAttribute('data-info', 'type');
    await page.getByTestId('cell-info-toggle').click();
    await expect(page.locator(cellOf('beach-sunset.jpg')).getByTestId('cell-info')).toHaveAttribute('data-info', 'details');

    // A landscape thumbnail fills the cell's width.
    const img = page.locator(cellOf('beach-sunset.jpg')).getByTestId('thumb-img');
    await expect(img).toHaveAttribute('data-thumb-state', 'full');
    const fill = await page.locator(cellOf('beach-sunset.jpg')).evaluate((cell) => {
      const i = cell.querySelector('img')!.getBoundingClientRect();
      const c = cell.getBoundingClientRect();
      return { w: i.width / c.width, area: (i.width * i.height) / (c.width * (c.height - 38)) };
    });
    expect(fill.w).toBeGreaterThan(0.9);
    expect(fill.area).toBeGreaterThan(0.8);

    // A long name: cut in the middle, its extension and last letters kept in view.
    const name = page.locator(cellOf(LONG)).getByTestId('cell-name');
    await expect(name).toHaveText(LONG);
    const cut = await name.evaluate((el) => {
      const head = el.querySelector('.cell-name-head') as HTMLElement;
      const tail = el.querySelector('.cell-name-tail') as HTMLElement;
      const box = el.getBoundingClientRect();
      const t = tail.getBoundingClientRect();
      return { headCut: head.scrollWidth > head.clientWidth, tail: tail.textContent, tailInside: t.right <= box.right + 0.5 && t.width > 0 };
    });
    expect(cut.headCut).toBe(true);
    expect(cut.tail).toBe('edit.jpg');
    expect(cut.tailInside).toBe(true);

    // Contrast: the grid with a selected cell and a hovered one, the sidebar, the panel and the toolbar.
    await page.locator(cellOf('city-night.jpg')).click();
    await page.locator(cellOf('red-door.jpg')).hover();
    await shot(page, `grid-cells-${viewport.width}`);
    for (const id of ['grid', 'sidebar', 'inspector']) expect(await lowContrast(page.getByTestId(id)), id).toEqual([]);
    expect(await lowContrast(page.locator('footer.toolbar')), 'toolbar').toEqual([]);
    expect(await lowContrast(page.locator('header').first()), 'top bar').toEqual([]);
  });
}
