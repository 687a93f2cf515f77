// Toolbar icons for compare (two frames) and survey (a field of frames), drawn like ui/icons.
const Icon = ({ d }: { d: string }) => (
  <svg viewBox="0 0 16 16" width="14" height="14" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
    <path d={d} />
  </svg>
);

export const IconCompare = () => <Icon d="M1.5 4h5.5v8h-5.5zM9 4h5.5v8h-5.5z" />;
export const IconSurvey = () => <Icon d="M1.5 3h5.5v4.5h-5.5zM9 3h5.5v4.5h-5.5zM1.5 9.5h5.5v4h-5.5zM9 9.5h5.5v4h-5.5z" />;
export const IconLock = ({ open }: { open: boolean }) => <Icon d={open ? 'M3.5 7.5h9v6h-9zM5.5 7.5V5a2.5 2.5 0 0 1 5-.5' : 'M3.5 7.5h9v6h-9zM5.5 7.5V5a2.5 2.5 0 0 1 5 0v2.5'} />;
