import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mediaToken, mimeFor, resolveMediaPath } from '../../src-main/core/media';

describe('media protocol path rules', () => {
  const base = mkdtempSync(join(tmpdir(), 'tagsmith-media-'));
  const library = join(base, 'library');
  const cache = join(base, 'cache');
  const outside = join(base, 'secret');
  mkdirSync(library);
  mkdirSync(cache);
  mkdirSync(outside);
  writeFileSync(join(library, 'photo.jpg'), 'jpg');
  writeFileSync(join(library, 'naïve café.jpg'), 'jpg');
  writeFileSync(join(cache, 'thumb.jpg'), 'thumb');
  writeFileSync(join(outside, 'passwd'), 'secret');
  symlinkSync(join(outside, 'passwd'), join(library, 'escape.jpg'));
  const roots = [library, cache];
  const url = (p: string) => '/' + mediaToken(p);

  it('serves files inside the library and the cache', () => {
    expect(resolveMediaPath(url(join(library, 'photo.jpg')), roots)).toEqual({ ok: true, path: join(library, 'photo.jpg') });
    expect(resolveMediaPath(url(join(cache, 'thumb.jpg')), roots)).toMatchObject({ ok: true });
    expect(resolveMediaPath(url(join(library, 'naïve café.jpg')), roots)).toMatchObject({ ok: true });
  });

  it('refuses files outside its roots, traversal and symlink escapes', () => {
    expect(resolveMediaPath(url(join(outside, 'passwd')), roots)).toMatchObject({ ok: false, status: 403 });
    expect(resolveMediaPath('/m/' + encodeURIComponent(library + '/../secret/passwd'), roots)).toMatchObject({ ok: false, status: 403 });
    expect(resolveMediaPath('/m/..%2F..%2Fetc%2Fpasswd', roots)).toMatchObject({ ok: false, status: 400 });
    expect(resolveMediaPath(url(join(library, 'escape.jpg')), roots)).toMatchObject({ ok: false, status: 403 });
    expect(resolveMediaPath('/m/%E0%A4%A', roots)).toMatchObject({ ok: false, status: 400 });
    expect(resolveMediaPath('/etc/passwd', roots)).toMatchObject({ ok: false, status: 400 });
    expect(resolveMediaPath(url(join(library, 'missing.jpg')), roots)).toMatchObject({ ok: false, status: 404 });
    expect(resolveMediaPath('/m/' + encodeURIComponent(library + '\0.jpg'), roots)).toMatchObject({ ok: false, status: 400 });
  });

  it('refuses a root prefix that is not a parent directory', () => {
    mkdirSync(library + '-other', { recursive: true });
    writeFileSync(join(library + '-other', 'x.jpg'), 'x');
    expect(resolveMediaPath(url(join(library + '-other', 'x.jpg')), roots)).toMatchObject({ ok: false, status: 403 });
  });

  it('names the MIME type the browser needs', () => {
    expect(mimeFor('/a/b.JPG')).toBe('image/jpeg');
    expect(mimeFor('/a/b.mov')).toBe('video/quicktime');
    expect(mimeFor('/a/b.unknown')).toBe('application/octet-stream');
  });
});
