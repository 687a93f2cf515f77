// Small stroke icons (inline SVG, no icon font: nothing to load, crisp at any DPI).
import type { SVGProps } from 'react';

function Icon({ d, ...rest }: { d: string } & SVGProps<SVGSVGElement>) {
  return (
    <svg viewBox="0 0 16 16" width="14" height="14" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" {...rest}>
      <path d={d} />
    </svg>
  );
}

export const IconFolder = () => <Icon d="M1.5 4.5v8h13v-7h-6.5l-1.5-1.5h-5z" />;
export const IconPlus = () => <Icon d="M8 3v10M3 8h10" />;
export const IconRefresh = () => <Icon d="M13 8a5 5 0 1 1-1.5-3.6M13 2.5v2.5h-2.5" />;
export const IconClose = () => <Icon d="M4 4l8 8M12 4l-8 8" />;
export const IconSearch = () => <Icon d="M7 12a5 5 0 1 0 0-10 5 5 0 0 0 0 10zM10.5 10.5l3.5 3.5" />;
export const IconLink = () => <Icon d="M6.5 9.5l3-3M5 8l-1.5 1.5a2.1 2.1 0 0 0 3 3L8 11M11 8l1.5-1.5a2.1 2.1 0 0 0-3-3L8 5" />;
export const IconTrash = () => <Icon d="M3 4.5h10M6 4.5V3h4v1.5M4.5 4.5l.7 9h5.6l.7-9" />;
export const IconWarn = () => <Icon d="M8 2l6.5 11.5h-13zM8 6.5v3M8 11.5v.01" />;
export const IconOffline = () => <Icon d="M2 2l12 12M5 6.5a5 5 0 0 0-2 1.5M8 11.5v.01M10.5 9a3.5 3.5 0 0 0-3.7-.9M13 8a7 7 0 0 0-4.2-2" />;
export const IconGrid = () => <Icon d="M2.5 2.5h4v4h-4zM9.5 2.5h4v4h-4zM2.5 9.5h4v4h-4zM9.5 9.5h4v4h-4z" />;
export const IconLoupe = () => <Icon d="M2.5 3.5h11v9h-11z" />;
export const IconInfo = () => <Icon d="M8 14.5a6.5 6.5 0 1 0 0-13 6.5 6.5 0 0 0 0 13zM8 7.5v4M8 4.8v.01" />;
export const IconThumbSize = () => <Icon d="M2.5 10.5h3v3h-3zM8.5 5.5h5v8h-5z" />;
export const IconPlay = () => <Icon d="M5 3.5l7 4.5-7 4.5z" />;
export const IconAudio = () => <Icon d="M6 12V3.5l7-1.5V10.5M6 12a1.7 1.7 0 1 1-3.4 0 1.7 1.7 0 0 1 3.4 0zM13 10.5a1.7 1.7 0 1 1-3.4 0 1.7 1.7 0 0 1 3.4 0z" />;
export const IconChevronLeft = () => <Icon d="M10 3L5 8l5 5" />;
export const IconChevronRight = () => <Icon d="M6 3l5 5-5 5" />;
export const IconSort = () => <Icon d="M5 3v10M2.5 10.5L5 13l2.5-2.5M11 13V3M8.5 5.5L11 3l2.5 2.5" />;
export const IconPause = () => <Icon d="M5.5 3.5v9M10.5 3.5v9" />;
export const IconStop = () => <Icon d="M4.5 4.5h7v7h-7z" />;
export const IconRetry = () => <Icon d="M3 8a5 5 0 1 0 1.5-3.6M3 2.5v2.5h2.5" />;
export const IconChevronDown = () => <Icon d="M3.5 6l4.5 4.5L12.5 6" />;
export const IconLibrary = () => <Icon d="M2.5 2.5h4v4h-4zM9.5 2.5h4v4h-4zM2.5 9.5h4v4h-4zM9.5 9.5h4v4h-4z" />;
export const IconActivity = () => <Icon d="M1.5 8.5h3l2-5 3 9 2-4h3" />;
export const IconSettings = () => (
  <Icon d="M8 10.2a2.2 2.2 0 1 0 0-4.4 2.2 2.2 0 0 0 0 4.4zM8 1.5v1.6M8 12.9v1.6M1.5 8h1.6M12.9 8h1.6M3.4 3.4l1.1 1.1M11.5 11.5l1.1 1.1M3.4 12.6l1.1-1.1M11.5 4.5l1.1-1.1" />
);
export const IconKey = () => <Icon d="M10 6.5a3.5 3.5 0 1 0-3.3 3.5L5 11.7V13.5h1.8v-1.3h1.3v-1.3l1.3-1.3A3.5 3.5 0 0 0 10 6.5zM10.2 5.2v.01" />;
export const IconCheck = () => <Icon d="M3 8.5l3 3 7-7" />;
export const IconReview = () => <Icon d="M2.5 3.5h7v9h-7zM11.5 4.5h2.5M11.5 7.5h2.5M11.5 10.5h2" />;
