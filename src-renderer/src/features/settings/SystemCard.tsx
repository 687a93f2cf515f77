import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { SystemReport, ToolStatus } from '../../../../src-preload/contract';
import { useClient } from '../../api/ClientContext';
import { IconCheck, IconWarn } from '../../ui/icons';
import { Button, formatBytes, formatCount, Spinner } from '../../ui/primitives';
import { errorText } from '../../ui/Toasts';

const SOURCE_TEXT: Record<NonNullable<ToolStatus['source']>, string> = {
  setting: 'set in Settings',
  env: 'from the environment',
  bundled: 'shipped with Tagsmith',
  path: 'installed on this computer',
};

/** Settings › System: the tools Tagsmith runs, found or not, and the catalogue's health. */
export function SystemCard({ active }: { active: boolean }) {
  const { api } = useClient();
  const [report, setReport] = useState<SystemReport | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  const load = useCallback(
    () =>
      api.systemStatus().then(
        (r) => {
          setReport(r);
          setProblem(null);
        },
        (err: unknown) => setProblem(errorText(err)),
      ),
    [api],
  );

  // Checked each time the view is shown: the user may just have installed a tool.
  useEffect(() => {
    if (active) void load();
  }, [active, load]);

  const check = async () => {
    setChecking(true);
    await load();
    setChecking(false);
  };

  return (
    <section className="card" data-testid="settings-system">
      <header className="card-head">
        <h2>System</h2>
        <span className="muted small">The programs Tagsmith runs for videos and file metadata.</span>
      </header>
      {problem && <p className="error-text">{problem}</p>}
      {!report && !problem && <Spinner label="Checking" />}
      {report && (
        <>
          <ul className="system-tools">
            {report.tools.map((t) => (
              <li key={t.name} className={`system-tool ${t.ok ? 'tool-ok' : 'tool-missing'}`} data-testid={`tool-${t.name}`} data-ok={t.ok}>
                {t.ok ? <IconCheck /> : <IconWarn />}
                <div>
                  <div>
                    <strong>{t.name}</strong> {t.ok ? <span>{t.version}</span> : <span className="error-text">not available</span>}
                    {t.source && <span className="muted small"> · {SOURCE_TEXT[t.source]}</span>}
                  </div>
                  {t.path && <div className="muted small mono" title={t.path}>{t.path}</div>}
                  {!t.ok && <div className="small">{t.impact}</div>}
                </div>
              </li>
            ))}
          </ul>
          <p className="small" data-testid="system-library">
            Catalogue: {formatCount(report.library.assets)} items, {formatBytes(report.library.sizeBytes)}, check{' '}
            {report.library.integrity === 'ok' ? 'passed' : <span className="error-text">found problems: {report.library.integrity}</span>}
            <span className="muted"> · {report.library.path}</span>
          </p>
        </>
      )}
      <div>
        <Button onClick={() => void check()} disabled={checking} data-testid="system-check">
          Check again
        </Button>
      </div>
      <ToolPaths onSaved={() => void check()} />
    </section>
  );
}

/** Paths the user sets for ffmpeg/ffprobe (first in the search, before the environment and the shipped copy). */
function ToolPaths({ onSaved }: { onSaved(): void }) {
  const { api } = useClient();
  const [paths, setPaths] = useState<{ ffmpeg: string; ffprobe: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api.systemSettings().then(
      (s) => live && setPaths({ ffmpeg: s.toolPaths.ffmpeg ?? '', ffprobe: s.toolPaths.ffprobe ?? '' }),
      (err: unknown) => live && setProblem(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [api]);

  if (!paths) return problem ? <p className="error-text">{problem}</p> : null;
  const save = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const s = await api.setSystemSettings({ toolPaths: { ffmpeg: paths.ffmpeg.trim() || null, ffprobe: paths.ffprobe.trim() || null } });
      setPaths({ ffmpeg: s.toolPaths.ffmpeg ?? '', ffprobe: s.toolPaths.ffprobe ?? '' });
      setProblem(null);
      onSaved();
    } catch (err) {
      setProblem(errorText(err));
    }
  };
  return (
    <form className="tool-paths" onSubmit={(e) => void save(e)} data-testid="tool-paths">
      <p className="muted small">To use another ffmpeg or ffprobe, give its full path; leave empty to find it automatically.</p>
      {(['ffmpeg', 'ffprobe'] as const).map((name) => (
        <label key={name} className="small">
          <span>{name}</span>
          <input
            type="text"
            value={paths[name]}
            placeholder="found automatically"
            onChange={(e) => setPaths({ ...paths, [name]: e.target.value })}
            data-testid={`tool-path-${name}`}
            spellCheck={false}
          />
        </label>
      ))}
      {problem && <p className="error-text">{problem}</p>}
      <Button type="submit" small data-testid="tool-paths-save">
        Use these paths
      </Button>
    </form>
  );
}
