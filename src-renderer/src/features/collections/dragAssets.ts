// Photos dragged from the grid: their ids travel in the drag under our own type, so a drop
// target can tell a drag of photos from files dragged in from the desktop.

export const ASSETS_TYPE = 'application/x-tagsmith-assets';

export const isAssetDrag = (e: { dataTransfer: DataTransfer | null }): boolean => !!e.dataTransfer?.types.includes(ASSETS_TYPE);

export function draggedIds(e: { dataTransfer: DataTransfer | null }): number[] {
  try {
    const ids = JSON.parse(e.dataTransfer?.getData(ASSETS_TYPE) || '[]') as unknown;
    return Array.isArray(ids) ? ids.filter((n): n is number => Number.isInteger(n) && n > 0) : [];
  } catch {
    return [];
  }
}
