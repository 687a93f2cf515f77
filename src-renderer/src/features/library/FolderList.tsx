import { useState, type FormEvent } from 'react';
import type { FolderInfo, ScanProgress } from '../../../../src-preload/contract';
import { ConfirmDialog } from '../../ui/Dialog';
import { IconButton, Button, Section, Spinner, formatCount } from '../../ui/primitives';
import { IconFolder, IconLink, IconOffline, IconPlus, IconRefresh, IconTrash, IconWarn } from '../../ui/icons';
import type { useFolders } from './useFolders';

type Folders = ReturnType<typeof useFolders>;

export function PathForm({ placeholder, submitLabel, onSubmit, onCancel, testId, autoFocus }: {
  placeholder: string;
  submitLabel: string;
  onSubmit(path: string): Promise<unknown> | void;
  onCancel?(): void;
  testId: string;
  autoFocus?: boolean;
}) {
  const [path, setPath] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const p = path.trim();
    if (!p) return;
    await onSubmit(p);
    setPath('');
  };
  return (
    <form className="path-form" onSubmit={submit} data-testid={`${testId}-form`}>
      <input
        type="text"
        value={path}
        placeholder={placeholder}
        spellCheck={false}
        autoFocus={autoFocus}
        data-testid={`${testId}-path`}
        onChange={(e) => setPath(e.target.value)}
        onKeyDown={(e) => e.key === 'Escape' && onCancel?.()}
      />
      <Button type="submit" small variant="primary" disabled={!path.trim()} data-testid={`${testId}-submit`}>
        {submitLabel}
      </Button>
    </form>
  );
}

export function FolderList({ folders, progress, activeFolder, onActivate, showPathForm, setShowPathForm, onAdd }: {
  folders: Folders;
  progress: ScanProgress[];
  activeFolder: number | undefined;
  onActivate(id: number | undefined): void;
  showPathForm: boolean;
  setShowPathForm(v: boolean): void;
  onAdd(): void;
}) {
  const [removing, setRemoving] = useState<FolderInfo | null>(null);
  const [relinking, setRelinking] = useState<number | null>(null);
  const list = folders.folders.data ?? [];

  return (
    <Section
      title="Folders"
      testId="folders"
      collapseKey="library.folders"
      actions={
        <>
          <IconButton label="Rescan all folders" onClick={() => void folders.rescan()} data-testid="rescan-all" disabled={list.length === 0}>
            <IconRefresh />
          </IconButton>
          <IconButton label="Add folder" onClick={onAdd} data-testid="add-folder">
            <IconPlus />
          </IconButton>
        </>
      }
    >
      {list.length === 0 && !folders.folders.loading && <p className="muted small">No folders yet.</p>}
      <ul className="folder-list">
        {list.map((f) => {
          const p = progress.find((x) => x.folderId === f.id);
          const scanning = f.scanning || !!p;
          const name = f.path.split(/[\\/]/).filter(Boolean).pop() ?? f.path;
          return (
            <li key={f.id} data-testid="folder-item" data-folder-path={f.path} data-online={f.online}>
              <div
                className={`folder-row${activeFolder === f.id ? ' is-active' : ''}${f.online ? '' : ' is-offline'}`}
                role="button"
                tabIndex={0}
                title={f.path}
                onClick={() => onActivate(activeFolder === f.id ? undefined : f.id)}
                onKeyDown={(e) => e.key === 'Enter' && onActivate(activeFolder === f.id ? undefined : f.id)}
              >
                <span className="folder-icon">{f.online ? <IconFolder /> : <IconOffline />}</span>
                <span className="folder-name">{name}</span>
                {!f.online && (
                  <span className="pill pill-offline" data-testid="folder-offline" title="Drive or folder not available — its photos stay browsable; reconnect or Relink">
                    offline
                  </span>
                )}
                {f.errorCount > 0 && (
                  <span className="pill pill-warn" title={`${f.errorCount} file(s) could not be read — filter “With errors” to see them`} data-testid="folder-errors">
                    <IconWarn /> {formatCount(f.errorCount)}
                  </span>
                )}
                {scanning && <Spinner label={`Scanning ${name}`} />}
                <span className="folder-count" data-testid="folder-count">{formatCount(f.assetCount)}</span>
              </div>
              <div className="folder-path" title={f.path}>{f.path}</div>
              <div className="folder-actions">
                <IconButton label="Rescan" onClick={() => void folders.rescan(f)} data-testid="folder-rescan">
                  <IconRefresh />
                </IconButton>
                <IconButton label="Relink to a new location" onClick={() => setRelinking(relinking === f.id ? null : f.id)} data-testid="folder-relink">
                  <IconLink />
                </IconButton>
                <IconButton label="Remove from library" onClick={() => setRemoving(f)} data-testid="folder-remove">
                  <IconTrash />
                </IconButton>
              </div>
              {relinking === f.id && (
                <PathForm
                  placeholder="New location of this folder"
                  submitLabel="Relink"
                  testId="relink"
                  autoFocus
                  onCancel={() => setRelinking(null)}
                  onSubmit={async (path) => {
                    const ok = await folders.relinkFolder(f, path);
                    if (ok) setRelinking(null);
                  }}
                />
              )}
            </li>
          );
        })}
      </ul>
      {showPathForm ? (
        <PathForm
          placeholder="/path/to/photos"
          submitLabel="Add"
          testId="add-folder"
          autoFocus
          onCancel={() => setShowPathForm(false)}
          onSubmit={async (path) => {
            const ok = await folders.addFolder(path);
            if (ok) setShowPathForm(false);
          }}
        />
      ) : (
        <button type="button" className="link-btn" onClick={() => setShowPathForm(true)} data-testid="add-folder-by-path">
          Add folder by path…
        </button>
      )}
      {removing && (
        <ConfirmDialog
          title="Remove folder from the library?"
          confirmLabel="Remove"
          danger
          testId="remove-dialog"
          onCancel={() => setRemoving(null)}
          onConfirm={() => {
            const f = removing;
            setRemoving(null);
            if (activeFolder === f.id) onActivate(undefined);
            void folders.removeFolder(f);
          }}
        >
          <p>
            <strong>{removing.path}</strong> and its {formatCount(removing.assetCount)} catalogue entries (keywords, captions, ratings) will be removed from Tagsmith.
          </p>
          <p>Your files are never touched: nothing on disk is moved or deleted.</p>
        </ConfirmDialog>
      )}
    </Section>
  );
}
