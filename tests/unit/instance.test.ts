import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { foldersInArgv, secondInstanceHandler, type FocusableWindow } from '../../src-main/instance';
import { restoredBounds } from '../../src-main/window';
import { adoptSystemProxy, proxyFromPac } from '../../src-main/core/proxy';

// The single-instance handler: a second launch focuses the first window and adds the folder it
// was given; nothing else on its command line is taken for a folder.

const root = mkdtempSync(join(tmpdir(), 'tagsmith-instance-'));
const photos = join(root, 'Pictures', '2024');
const app = join(root, 'app');
mkdirSync(photos, { recursive: true });
mkdirSync(app);
writeFileSync(join(root, 'notes.txt'), 'not a folder');
afterAll(() => rmSync(root, { recursive: true, force: true }));

function fakeWindow(minimized: boolean) {
  const calls: string[] = [];
  const win: FocusableWindow = {
    isDestroyed: () => false,
    isMinimized: () => minimized,
    restore: () => calls.push('restore'),
    show: () => calls.push('show'),
    focus: () => calls.push('focus'),
  };
  return { win, calls };
}

describe('second instance', () => {
  it('restores and focuses the first window and adds the folder from the second launch', async () => {
    const { win, calls } = fakeWindow(true);
    const added: string[] = [];
    const handler = secondInstanceHandler({ window: () => win, addFolder: async (p) => void added.push(p), appPath: app });
    const result = await handler(['/opt/Tagsmith/tagsmith', '--library', root, 'Pictures/2024', 'notes.txt', 'missing'], root);
    expect(calls).toEqual(['restore', 'show', 'focus']);
    expect(added).toEqual([photos]);
    expect(result).toEqual([photos]);
  });

  it('only focuses when nothing was passed; a window not minimised is not restored', async () => {
    const { win, calls } = fakeWindow(false);
    const added: string[] = [];
    const handler = secondInstanceHandler({ window: () => win, addFolder: async (p) => void added.push(p), appPath: app });
    await handler(['/opt/Tagsmith/tagsmith'], root);
    expect(calls).toEqual(['show', 'focus']);
    expect(added).toEqual([]);
  });

  it('does not take `electron .` (the app itself, in development) or flags for folders', () => {
    expect(foldersInArgv(['/usr/bin/electron', app, '--inspect', photos, photos], '/', app)).toEqual([photos]);
    expect(foldersInArgv(['electron', '.', join('Pictures', '2024')], root, join(root, '.'))).toEqual([photos]);
  });
});

describe('window bounds restored at start', () => {
  const screen = [{ x: 0, y: 0, width: 1920, height: 1080 }];
  it('come back as saved when they fit a display', () => {
    expect(restoredBounds({ x: 100, y: 80, width: 1200, height: 800, maximized: false }, screen)).toEqual({ bounds: { x: 100, y: 80, width: 1200, height: 800 }, maximized: false });
    expect(restoredBounds({ x: 0, y: 0, width: 1920, height: 1080, maximized: true }, screen)?.maximized).toBe(true);
  });
  it('keep the size but not a position on a display that is gone, and never go below the minimum', () => {
    expect(restoredBounds({ x: 2500, y: 100, width: 1200, height: 800 }, screen)).toEqual({ bounds: { width: 1200, height: 800 }, maximized: false });
    expect(restoredBounds({ x: 10, y: 10, width: 200, height: 100 }, screen)?.bounds).toEqual({ x: 10, y: 10, width: 960, height: 600 });
    expect(restoredBounds(null, screen)).toBeNull();
  });
});

describe('the system proxy', () => {
  it('is taken from the PAC answer into HTTP(S)_PROXY, unless the user set one', () => {
    expect(proxyFromPac('PROXY proxy.corp:3128; DIRECT')).toBe('http://proxy.corp:3128');
    expect(proxyFromPac('HTTPS secure.corp:443')).toBe('https://secure.corp:443');
    expect(proxyFromPac('DIRECT')).toBeNull();
    expect(proxyFromPac('SOCKS5 s:1080')).toBeNull();
    const env: NodeJS.ProcessEnv = {};
    expect(adoptSystemProxy('PROXY proxy.corp:3128', env)).toBe('http://proxy.corp:3128');
    expect(env).toEqual({ HTTPS_PROXY: 'http://proxy.corp:3128', HTTP_PROXY: 'http://proxy.corp:3128' });
    const own: NodeJS.ProcessEnv = { https_proxy: 'http://mine:8080' };
    expect(adoptSystemProxy('PROXY proxy.corp:3128', own)).toBeNull();
    expect(own).toEqual({ https_proxy: 'http://mine:8080' });
  });
});
