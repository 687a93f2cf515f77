import type { AssetDetail, CreativeTaskView } from '../../../../src-preload/contract';
import { useQuery } from '../../api/useQuery';
import { Section } from '../../ui/primitives';
import { KIND_LABEL, when } from './format';

function SourceLink({ id, onJump }: { id: number; onJump(id: number): void }) {
  const a = useQuery<AssetDetail>(`asset:${id}`, ['assets', 'keywords'], (api) => api.getAsset({ id }));
  return (
    <button type="button" className="link-btn prov-source" onClick={() => onJump(id)} data-testid="provenance-source" data-asset-id={id} title={a.data?.path}>
      {a.data?.name ?? (a.error ? `asset ${id} (removed)` : `asset ${id}`)}
    </button>
  );
}

/** The task that made an asset (null for the user's own files). */
export function useCreationOf(assetId: number | null) {
  return useQuery<CreativeTaskView | null>(assetId === null ? null : `creationOf:${assetId}`, ['assets'], (api) => api.creationOf({ assetId: assetId! }));
}

/** Inspector section for assets Tagsmith made: what made them, from what, so they can be found and reproduced. */
export function ProvenanceSection({ assetId, onJump }: { assetId: number; onJump(id: number): void }) {
  const t = useCreationOf(assetId).data;
  if (!t) return null;
  const p = t.params;
  const str = (k: string): string | null => (p[k] === undefined || p[k] === null || p[k] === '' ? null : String(p[k]));
  const rows: [string, string | null][] = [
    ['Made by', KIND_LABEL[t.kind]],
    ['Prompt', str('prompt')],
    ['Text', t.kind === 'speech' ? str('text') : null],
    ['Voice', str('voice')],
    ['Model', str('model')],
    ['Seed', str('seed')],
    ['Quality', str('quality')],
    ['Resolution', str('resolution')],
    ['Size', str('imageSize')],
    ['Style', str('style')],
    ['Made', when(t.finishedAt ?? t.createdAt)],
    ['Task', `#${t.id}${t.parts[0]?.remoteTaskId ? ` · service ${t.parts.map((x) => x.remoteTaskId).filter(Boolean).join(', ')}` : ''}`],
  ];
  return (
    <Section title="Provenance" testId="provenance" actions={<span className="pill pill-ai" data-testid="provenance-ai">AI-generated</span>}>
      <dl className="meta prov-meta" data-task-id={t.id} data-kind={t.kind}>
        {rows.filter(([, v]) => v !== null).map(([k, v]) => (
          <div className="meta-row" key={k}>
            <dt>{k}</dt>
            <dd className={k === 'Prompt' || k === 'Text' ? 'prov-prompt' : undefined} data-testid={`provenance-${k.toLowerCase()}`}>{v}</dd>
          </div>
        ))}
        {t.sourceAssetIds.length > 0 && (
          <div className="meta-row">
            <dt>Sources</dt>
            <dd className="prov-sources">
              {t.sourceAssetIds.map((id) => <SourceLink key={id} id={id} onJump={onJump} />)}
            </dd>
          </div>
        )}
      </dl>
    </Section>
  );
}
