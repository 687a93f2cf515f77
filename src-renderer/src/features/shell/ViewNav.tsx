import { useRef, type KeyboardEvent } from 'react';
import { IconActivity, IconLibrary, IconSettings } from '../../ui/icons';
import { IconCreate } from '../create/icons';
import { formatCount } from '../../ui/primitives';
import { useQueue } from '../activity/queueStore';

export type ViewName = 'library' | 'activity' | 'settings' | 'create';

export const VIEWS: { name: ViewName; label: string; key: string; icon: () => React.JSX.Element }[] = [
  { name: 'library', label: 'Library', key: '1', icon: IconLibrary },
  { name: 'activity', label: 'Activity', key: '2', icon: IconActivity },
  { name: 'settings', label: 'Settings', key: '3', icon: IconSettings },
  { name: 'create', label: 'Create', key: '4', icon: IconCreate },
];

const mod = typeof navigator !== 'undefined' && /Mac/.test(navigator.platform) ? '⌘' : 'Ctrl+';

/** The view switcher in the top bar: tabs with arrow-key movement, Ctrl/Cmd+1..3 from anywhere (see App). */
export function ViewNav({ view, onView }: { view: ViewName; onView(v: ViewName): void }) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const { snap } = useQueue();
  const s = snap.status;
  const working = (s?.counts.running ?? 0) + (s?.counts.queued ?? 0);
  const held = s?.hold ?? null;

  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const i = VIEWS.findIndex((v) => v.name === view);
    let next = -1;
    if (e.key === 'ArrowRight') next = (i + 1) % VIEWS.length;
    else if (e.key === 'ArrowLeft') next = (i + VIEWS.length - 1) % VIEWS.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = VIEWS.length - 1;
    if (next < 0) return;
    e.preventDefault();
    e.stopPropagation();
    onView(VIEWS[next].name);
    refs.current[next]?.focus();
  };

  return (
    <div className="view-nav" role="tablist" aria-label="Views" onKeyDown={onKey} data-testid="view-nav">
      {VIEWS.map((v, i) => {
        const on = v.name === view;
        const Icon = v.icon;
        return (
          <button
            key={v.name}
            ref={(el) => {
              refs.current[i] = el;
            }}
            type="button"
            role="tab"
            aria-selected={on}
            tabIndex={on ? 0 : -1}
            className={on ? 'on' : ''}
            title={`${v.label} (${mod}${v.key})`}
            onClick={() => onView(v.name)}
            data-testid={`nav-${v.name}`}
          >
            <Icon />
            <span>{v.label}</span>
            {v.name === 'activity' && held && (
              <span className={`nav-dot nav-dot-${held.reason}`} data-testid="nav-activity-held" title={held.message} aria-label="The queue is held" />
            )}
            {v.name === 'activity' && !held && working > 0 && (
              <span className="nav-count" data-testid="nav-activity-count" aria-label={`${working} jobs waiting or running`}>
                {formatCount(working)}
              </span>
            )}
          </button>
        );
      })}
    </div>
  );
}
