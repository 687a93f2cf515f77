import { useEffect, useState } from 'react';
import type { FullImage } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { useQuery } from '../../api/useQuery';

export interface FullPicture {
  /** URL of the decoded full-size picture, once it can be painted without blocking. */
  src: string | null;
  width: number;
  height: number;
  /** Why there is no full-size picture, or why it is less than the file's pixels (a RAW). */
  note: string | null;
  failed: boolean;
}

const NONE: FullPicture = { src: null, width: 0, height: 0, note: null, failed: false };

/**
 * The picture at its own pixel size, asked for only when 100 % is wanted. A 24 MP JPEG takes
 * a while to decode: `decode()` does it off the main thread, and the 100 % view appears only
 * once it is ready, so the window never freezes on it (the fit view stays until then).
 */
export function useFullImage(id: number | null, wanted: boolean): FullPicture & { loading: boolean } {
  const { mediaUrl } = useClient();
  const info = useQuery<FullImage>(id !== null && wanted ? `full:${id}` : null, ['assets'], (a) => a.getFullImage({ id: id! }));
  const token = info.data?.token ?? null;
  const [pic, setPic] = useState<FullPicture & { token: string | null }>({ ...NONE, token: null });
  useEffect(() => {
    if (!token || pic.token === token) return;
    let current = true;
    const img = new Image();
    img.src = mediaUrl(token);
    img.decode().then(
      () => current && setPic({ src: img.src, width: img.naturalWidth, height: img.naturalHeight, note: null, failed: false, token }),
      () => current && setPic({ ...NONE, note: 'The full-size picture could not be decoded.', failed: true, token }),
    );
    return () => {
      current = false;
    };
  }, [token, pic.token, mediaUrl]);
  if (!wanted || id === null) return { ...NONE, loading: false };
  if (info.error) return { ...NONE, note: info.error.message, failed: true, loading: false };
  if (info.data && !info.data.token) return { ...NONE, note: info.data.note ?? 'No full-size picture can be shown for this file.', failed: true, loading: false };
  if (!token || pic.token !== token) return { ...NONE, loading: true };
  return { src: pic.src, width: pic.width, height: pic.height, note: pic.failed ? pic.note : info.data?.note ?? null, failed: pic.failed, loading: false };
}
