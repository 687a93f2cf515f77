import { useEffect, useState } from 'react';
import type { CollectionInfo, FolderInfo, StudioState, StudioSubsetState } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { Button, Spinner } from '../../ui/primitives';
import { errorText } from '../../ui/Toasts';

const photosText = (n: number): string => `${n.toLocaleString()} photo${n === 1 ? '' : 's'}`;

/** What this computer holds, in words: "All of the studio", or the folders and collections chosen. */
function holdsText(s: StudioSubsetState | null): string {
  if (!s) return 'All of the studio';
  const parts = [...s.folders, ...s.collections.map((c) => `collection “${c}”`)];
  return `Only ${parts.join(', ')}`;
}

/**
 * Settings › Studio › This computer holds: all of the studio, or chosen folders and collections
 * (a laptop), changed here as `tagsmith studio subset` does. Photos newly included come with
 * their edits; photos no longer included stay here and stop receiving changes.
 */
export function SubsetSection({ state, busy, onState }: { state: StudioState; busy: boolean; onState(s: StudioState): void }) {
  const { api } = useClient();
  const [editing, setEditing] = useState(false);
  const [all, setAll] = useState(state.subset === null);
  const [folders, setFolders] = useState<string[]>(state.subset?.folders ?? []);
  const [collections, setCollections] = useState<string[]>(state.subset?.collections ?? []);
  const [known, setKnown] = useState<{ folders: FolderInfo[]; collections: CollectionInfo[] } | null>(null);
  const [saving, setSaving] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    if (!editing) return;
    let live = true;
    void Promise.all([api.listFolders(), api.listCollections()]).then(
      ([f, c]) => live && setKnown({ folders: f, collections: c.filter((x) => x.kind === 'manual') }),
      (err: unknown) => live && setProblem(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [api, editing]);

  const start = () => {
    setAll(state.subset === null);
    setFolders(state.subset?.folders ?? []);
    setCollections(state.subset?.collections ?? []);
    setProblem(null);
    setEditing(true);
  };
  const addFolder = async () => {
    const path = await api.pickFolder();
    if (path && !folders.includes(path)) setFolders([...folders, path]);
  };
  const toggle = (name: string) => setCollections(collections.includes(name) ? collections.filter((c) => c !== name) : [...collections, name]);
  const apply = async () => {
    setSaving(true);
    setProblem(null);
    try {
      onState(await api.studioSetSubset({ subset: all ? null : { folders, collections } }));
      setEditing(false);
    } catch (err) {
      setProblem(errorText(err));
    } finally {
      setSaving(false);
    }
  };
  const nothingChosen = !all && !folders.length && !collections.length;
  // Folders here: the chosen ones first, then the library's others (a path picked but not yet in the library shows without a count).
  const folderRows = [...new Set([...folders, ...(known?.folders.map((f) => f.path) ?? [])])];
  const countOf = (path: string) => known?.folders.find((f) => f.path === path)?.assetCount;

  return (
    <div data-testid="studio-subset">
      <h3 className="small">This computer holds</h3>
      {!editing ? (
        <p>
          <span data-testid="studio-subset-holds">{holdsText(state.subset)}</span>{' '}
          <Button variant="ghost" onClick={start} disabled={busy} data-testid="studio-subset-change">
            Change…
          </Button>
        </p>
      ) : (
        <div className="studio-subset-editor" data-testid="studio-subset-editor">
          <label className="studio-subset-row">
            <input type="radio" name="studio-subset" checked={all} onChange={() => setAll(true)} data-testid="studio-subset-all" /> All of the studio
          </label>
          <label className="studio-subset-row">
            <input type="radio" name="studio-subset" checked={!all} onChange={() => setAll(false)} data-testid="studio-subset-chosen" /> Only chosen folders and collections (a laptop)
          </label>
          {!all && (
            <div className="studio-subset-lists">
              <div>
                <h4 className="small">Folders</h4>
                {known === null ? (
                  <Spinner label="Loading" />
                ) : (
                  <ul className="studio-subset-list" data-testid="studio-subset-folders">
                    {folderRows.map((p) => (
                      <li key={p}>
                        <label className="studio-subset-row">
                          <input type="checkbox" checked={folders.includes(p)} onChange={() => setFolders(folders.includes(p) ? folders.filter((f) => f !== p) : [...folders, p])} data-testid="studio-subset-folder" data-path={p} />{' '}
                          <code>{p}</code> {countOf(p) !== undefined && <span className="muted small">{photosText(countOf(p)!)} here</span>}
                        </label>
                      </li>
                    ))}
                  </ul>
                )}
                <Button variant="ghost" onClick={() => void addFolder()} data-testid="studio-subset-add-folder">
                  Add a folder…
                </Button>
              </div>
              <div>
                <h4 className="small">Collections</h4>
                {known === null ? (
                  <Spinner label="Loading" />
                ) : known.collections.length ? (
                  <ul className="studio-subset-list" data-testid="studio-subset-collections">
                    {known.collections.map((c) => (
                      <li key={c.id}>
                        <label className="studio-subset-row">
                          <input type="checkbox" checked={collections.includes(c.name)} onChange={() => toggle(c.name)} data-testid="studio-subset-collection" data-name={c.name} /> {c.name}{' '}
                          <span className="muted small">{photosText(c.count)} here</span>
                        </label>
                      </li>
                    ))}
                  </ul>
                ) : (
                  <p className="muted small">The studio has no collections yet.</p>
                )}
              </div>
            </div>
          )}
          <p className="muted small">
            Photos newly included are copied here with everything done to them (a collection’s photos come with their folders). Photos no longer included stay on this computer and stop receiving changes; your own changes are always sent.
          </p>
          <div className="form-actions">
            <Button variant="primary" onClick={() => void apply()} disabled={saving || nothingChosen} data-testid="studio-subset-apply">
              {saving && <Spinner label="Copying" />}Apply
            </Button>
            <Button variant="ghost" onClick={() => setEditing(false)} disabled={saving}>
              Cancel
            </Button>
            {problem && (
              <span className="error-text" role="alert" data-testid="studio-subset-problem">
                {problem}
              </span>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
