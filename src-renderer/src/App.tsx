import { useEffect, useState } from 'react';
import type { FolderInfo } from '../../src-preload/contract';
import { useClient } from './api/ClientContext';
import { useQuery } from './api/useQuery';
import { ActivityTopBar, ActivityView } from './features/activity/ActivityView';
import { CreateView } from './features/create/CreateView';
import { useRevealListener } from './features/create/reveal';
import { LibraryView } from './features/library/LibraryView';
import { SettingsView } from './features/settings/SettingsView';
import { VIEWS, ViewNav, type ViewName } from './features/shell/ViewNav';
import { isOneOf, usePersistentState } from './state/viewState';
import { ViewErrorBoundary } from './ui/ErrorBoundary';
import { TopBarSlot, TopBarSlotContext } from './ui/TopBarSlot';
import { StudioBadge } from './features/studio/StudioBadge';
import { useToast } from './ui/Toasts';

/**
 * The shell: one top bar (brand, the active view's controls, the view switcher) over three
 * views. The library stays mounted while Activity or Settings is shown — hidden and inert —
 * so its search, filters, selection and scroll position are where the user left them.
 */
export function App() {
  const { api } = useClient();
  const [view, setView] = usePersistentState<ViewName>('view', 'library', isOneOf(...VIEWS.map((v) => v.name)));
  // Notices belong to the view they were about: going to another view clears them.
  const clearNotices = useToast().clear;
  const [slot, setSlot] = useState<HTMLElement | null>(null);
  const [visited, setVisited] = useState<ReadonlySet<ViewName>>(() => new Set(['library', view]));
  const folders = useQuery<FolderInfo[]>('folders', ['folders'], (a) => a.listFolders());

  const show = (v: ViewName, keepNotices = false) => {
    if (v !== view && !keepNotices) clearNotices();
    setView(v);
    setVisited((s) => (s.has(v) ? s : new Set([...s, v])));
  };

  // "Show in library" from Create: the library selects the asset (see useLibraryReveal).
  // (The library may just have said why it cannot: that notice stays.)
  useRevealListener(() => show('library', true));

  // Ctrl/Cmd+1..3 switch views from anywhere (also while typing: these keys insert nothing).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey) return;
      const target = VIEWS.find((v) => v.key === e.key);
      if (!target || document.querySelector('[role="dialog"]')) return;
      e.preventDefault();
      clearNotices();
      setView(target.name);
      setVisited((s) => (s.has(target.name) ? s : new Set([...s, target.name])));
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setView, clearNotices]);

  return (
    <TopBarSlotContext.Provider value={slot}>
      <div className="app" data-testid="app" data-ready={folders.data !== undefined} data-view={view}>
        <header className="topbar">
          <div className="brand">Tagsmith</div>
          <div className="topbar-slot" ref={setSlot} />
          <StudioBadge onOpen={() => show('settings')} />
          <ViewNav view={view} onView={show} />
        </header>
        <div className={`view${view === 'library' ? '' : ' view-hidden'}`} inert={view !== 'library'} data-testid="view-library">
          <ViewErrorBoundary view="Library" api={api}>
            <LibraryView active={view === 'library'} />
          </ViewErrorBoundary>
        </div>
        {visited.has('activity') && (
          <div className={`view${view === 'activity' ? '' : ' view-hidden'}`} inert={view !== 'activity'}>
            <TopBarSlot active={view === 'activity'}>
              <ActivityTopBar />
            </TopBarSlot>
            <ViewErrorBoundary view="Activity" api={api}>
              <ActivityView active={view === 'activity'} onOpenSettings={() => show('settings')} />
            </ViewErrorBoundary>
          </div>
        )}
        {visited.has('settings') && (
          <div className={`view${view === 'settings' ? '' : ' view-hidden'}`} inert={view !== 'settings'}>
            <TopBarSlot active={view === 'settings'}>
              <h1 className="view-title">Settings</h1>
              <span className="result-count">Service, credentials, usage caps, backups and tools</span>
            </TopBarSlot>
            <ViewErrorBoundary view="Settings" api={api}>
              <SettingsView active={view === 'settings'} />
            </ViewErrorBoundary>
          </div>
        )}
        {visited.has('create') && (
          <div className={`view${view === 'create' ? '' : ' view-hidden'}`} inert={view !== 'create'} data-testid="view-create">
            <TopBarSlot active={view === 'create'}>
              <h1 className="view-title">Create</h1>
              <span className="result-count">Speech, lipsync and images made by the service — saved to the library</span>
            </TopBarSlot>
            <ViewErrorBoundary view="Create" api={api}>
              <CreateView active={view === 'create'} />
            </ViewErrorBoundary>
          </div>
        )}
      </div>
    </TopBarSlotContext.Provider>
  );
}
