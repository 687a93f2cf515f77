import { mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { tagsmithSync, type CliRun } from '../helpers/cli';

// `tagsmith agencies | check | export --csv --agency` as outside checks use them (issue 19's
// CLI contract): a real child process against real JPEGs indexed into a fresh library.

let root: string;
let photos: string;
let library: string;

const cli = (...args: string[]): CliRun => tagsmithSync(library, args, { timeout: 120_000 });
const p = (name: string): string => join(photos, name);

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tagsmith-agencies-')));
  photos = join(root, 'photos');
  library = join(root, 'lib');
  mkdirSync(photos, { recursive: true });
  // 2500×1700 = 4.25 MP passes Adobe Stock's 4 MP; 800×600 does not.
  await sharp({ create: { width: 2500, height: 1700, channels: 3, background: { r: 20, g: 90, b: 160 } } }).jpeg().toFile(p('harbour.jpg'));
  await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 160, g: 90, b: 20 } } }).jpeg().toFile(p('small.jpg'));
  expect(cli('index', photos).code).toBe(0);
  for (const f of ['harbour.jpg', 'small.jpg']) {
    expect(cli('tag', p(f), '--add', 'boat,harbour,dawn,sea,water,calm,morning').code).toBe(0);
    expect(cli('caption', p(f), '--set', 'Fishing boats in a quiet harbour at dawn').code).toBe(0);
  }
});

describe('tagsmith agencies', () => {
  it('lists the nine profiles as [{id, name, protocols, csv}]', () => {
    const r = cli('agencies', '--json');
    expect(r.code, r.stderr).toBe(0);
    const list = r.json<{ id: string; name: string; protocols: string[]; csv: boolean }[]>();
    expect(list.map((a) => a.id)).toEqual(['adobe', 'shutterstock', 'getty', 'alamy', 'pond5', 'dreamstime', '123rf', 'depositphotos', 'freepik']);
    for (const a of list) {
      expect(Object.keys(a).sort()).toEqual(['csv', 'id', 'name', 'protocols']);
      for (const proto of a.protocols) expect(['ftp', 'ftps', 'sftp']).toContain(proto);
    }
    expect(list.find((a) => a.id === 'shutterstock')).toEqual({ id: 'shutterstock', name: 'Shutterstock', protocols: ['ftps'], csv: true });
    expect(list.find((a) => a.id === 'getty')).toMatchObject({ csv: false });
    const text = cli('agencies');
    expect(text.stdout).toMatch(/Not found in its documentation: /);
  });
});

describe('tagsmith check', () => {
  it('gives a verdict per photo with what to fix', () => {
    const r = cli('check', '--agency', 'adobe', p('harbour.jpg'), p('small.jpg'), '--json');
    expect(r.code, r.stderr).toBe(0);
    const v = r.json<{ path: string; ok: boolean; problems: string[] }[]>();
    expect(v).toEqual([
      { path: p('harbour.jpg'), ok: true, problems: [] },
      { path: p('small.jpg'), ok: false, problems: [expect.stringMatching(/800×600 is 0\.48 MP; Adobe Stock needs at least 4 MP/)] },
    ]);
    const ss = cli('check', '--agency', 'shutterstock', '--query', 'harbour', '--json').json<{ ok: boolean; problems: string[] }[]>();
    expect(ss).toHaveLength(2);
    expect(ss.every((x) => x.problems.some((m) => /No category: Shutterstock needs 1 to 2/.test(m)))).toBe(true);
    expect(cli('check', '--agency', 'nope', p('harbour.jpg')).code).toBe(2);
    expect(cli('check', p('harbour.jpg')).code).toBe(2);
  });
});

describe('tagsmith export --csv --agency', () => {
  it('holds back photos that fail the check unless --force, and says why', () => {
    const file = join(root, 'adobe.csv');
    const r = cli('export', p('harbour.jpg'), p('small.jpg'), '--csv', file, '--agency', 'adobe', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ csv: file, agency: 'adobe', rows: 1, heldBack: [p('small.jpg')] });
    expect(readFileSync(file, 'utf8')).toBe('Filename,Title,Keywords,Category,Releases\r\nharbour.jpg,Fishing boats in a quiet harbour at dawn,"boat,harbour,dawn,sea,water,calm,morning",,\r\n');

    const forced = cli('export', p('harbour.jpg'), p('small.jpg'), '--csv', file, '--agency', 'adobe', '--force', '--json');
    expect(forced.json()).toMatchObject({ rows: 2, heldBack: [], assets: [{ ok: true, included: true }, { ok: false, included: true }] });
    expect(readFileSync(file, 'utf8').trimEnd().split('\r\n')).toHaveLength(3);

    const text = cli('export', p('small.jpg'), '--csv', file, '--agency', 'adobe');
    expect(text.stdout).toMatch(/Held back 1 that fails Adobe Stock's rules \(fix them, or add --force\)/);
  });

  it('refuses a CSV for an agency that documents none, naming the ones that do', () => {
    const r = cli('export', p('harbour.jpg'), '--csv', join(root, 'g.csv'), '--agency', 'getty');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Getty Images \/ iStock documents no metadata CSV; --csv works with --agency adobe, shutterstock/);
  });
});
