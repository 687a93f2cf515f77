import { useNow } from '../../state/useNow';
import { changesText, useStudio, whenText } from './useStudio';

/** The top bar's word on the studio: its name and whether this library is in step with it. */
export function StudioBadge({ onOpen }: { onOpen(): void }) {
  const [state] = useStudio();
  const now = useNow(30_000, state?.member === true);
  if (!state?.member) return null;
  const pending = state.pendingChanges;
  const text = !state.connected
    ? `Offline${pending ? ` · ${pending} to send` : ''}`
    : pending
      ? `Sending ${changesText(pending)}…`
      : `In sync · ${whenText(state.lastSyncAt, now)}`;
  return (
    <button
      type="button"
      className={`studio-badge ${state.connected ? 'studio-on' : 'studio-off'}`}
      onClick={onOpen}
      title={state.error ?? `Studio “${state.studio?.name}” at ${state.server} — open Settings › Studio`}
      data-testid="studio-badge"
      data-connected={state.connected}
      data-pending={pending}
    >
      <span className="studio-dot" aria-hidden />
      <span className="studio-name">{state.studio?.name}</span>
      <span className="studio-state">{text}</span>
    </button>
  );
}
