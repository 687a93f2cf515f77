import { useState } from 'react';
import type { CollectionInfo, SmartQuery } from '../../../../src-preload/contract';
import { Modal } from '../../ui/Modal';
import { Button } from '../../ui/primitives';
import type { Collections } from './useCollections';

/** "Save current filters as a smart collection": a name, and optionally the set it goes in. */
export function SaveSmartDialog({ collections, query, onClose, onSaved }: { collections: Collections; query: SmartQuery; onClose(): void; onSaved(c: CollectionInfo): void }) {
  const [name, setName] = useState('');
  const [parentId, setParentId] = useState<number | null>(null);
  const sets = (collections.list.data ?? []).filter((c) => c.kind === 'set');
  const save = async () => {
    const made = await collections.create(name.trim(), 'smart', parentId, query);
    if (made) onSaved(made);
  };
  return (
    <Modal
      title="Save as smart collection"
      subtitle="It keeps every photo that matches these filters, now and as the library changes."
      onClose={onClose}
      testId="save-smart-dialog"
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" disabled={!name.trim()} onClick={() => void save()} data-testid="save-smart-submit">
            Save
          </Button>
        </>
      }
    >
      <form
        className="form-grid"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) void save();
        }}
      >
        <label>
          Name
          <input type="text" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. Rated 3+ without keywords" data-testid="save-smart-name" />
        </label>
        <label>
          In set
          <select value={parentId ?? ''} onChange={(e) => setParentId(e.target.value ? Number(e.target.value) : null)} data-testid="save-smart-parent">
            <option value="">None (at the top)</option>
            {sets.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
      </form>
    </Modal>
  );
}
