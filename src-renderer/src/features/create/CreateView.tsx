import { useState } from 'react';
import { IconActivity, IconAudio, IconLoupe, IconPlay } from '../../ui/icons';
import { formatCount } from '../../ui/primitives';
import { IconFace, IconSpark } from './icons';
import './create.css';
import { EditPanel } from './EditPanel';
import { FaceSwapPanel } from './FaceSwapPanel';
import { GeneratePanel } from './GeneratePanel';
import { isActive } from './format';
import { LipsyncPanel } from './LipsyncPanel';
import { SpeechPanel } from './SpeechPanel';
import { TasksPanel } from './TasksPanel';
import { VectorizePanel } from './VectorizePanel';
import { useCreativeTasks, useRefreshOnShow } from './taskStore';

export type CreatePanel = 'speech' | 'lipsync' | 'generate' | 'edit' | 'faceswap' | 'vectorize' | 'tasks';

const PANELS: { name: CreatePanel; label: string; sub: string; icon: () => React.JSX.Element }[] = [
  { name: 'speech', label: 'Voices & speech', sub: 'Text to speech', icon: IconAudio },
  { name: 'lipsync', label: 'Lipsync', sub: 'A face speaks the audio', icon: IconPlay },
  { name: 'generate', label: 'Generate image', sub: 'From a prompt', icon: IconSpark },
  { name: 'edit', label: 'Edit images', sub: 'Change pictures by prompt', icon: IconLoupe },
  { name: 'faceswap', label: 'Face swap', sub: 'Donor face onto a picture or video', icon: IconFace },
  { name: 'vectorize', label: 'Vectorize', sub: 'A picture into an SVG', icon: IconSpark },
  { name: 'tasks', label: 'Tasks', sub: 'Everything made, and in progress', icon: IconActivity },
];

/** Create: voices and speech, lipsync, image generation and editing, face swap, vectorize, and their tasks. */
export function CreateView({ active }: { active: boolean }) {
  const [panel, setPanel] = useState<CreatePanel>('speech');
  const { tasks } = useCreativeTasks();
  useRefreshOnShow(active);
  const running = tasks.filter(isActive).length;
  return (
    <div className="workspace create" data-testid="create" data-panel={panel}>
      <nav className="sidebar create-nav" aria-label="Create">
        <div className="create-nav-head muted small">Create with the service</div>
        {PANELS.map((p) => {
          const Icon = p.icon;
          return (
            <button key={p.name} type="button" className={`create-nav-item${panel === p.name ? ' on' : ''}`} onClick={() => setPanel(p.name)} data-testid={`create-nav-${p.name}`} aria-current={panel === p.name}>
              <span className="create-nav-icon"><Icon /></span>
              <span className="create-nav-text">
                <span>{p.label}</span>
                <span className="muted small">{p.sub}</span>
              </span>
              {p.name === 'tasks' && running > 0 && <span className="nav-count" data-testid="create-running">{formatCount(running)}</span>}
            </button>
          );
        })}
        <p className="create-nav-foot muted small">Results are saved to the library folder “Creations”, tagged as AI-generated, with what made them.</p>
      </nav>
      <main className="create-main">
        {/* Panels stay mounted so a half-written script or prompt survives switching. */}
        <div className="create-slot" hidden={panel !== 'speech'}><SpeechPanel /></div>
        <div className="create-slot" hidden={panel !== 'lipsync'}><LipsyncPanel /></div>
        <div className="create-slot" hidden={panel !== 'generate'}><GeneratePanel /></div>
        <div className="create-slot" hidden={panel !== 'edit'}><EditPanel /></div>
        <div className="create-slot" hidden={panel !== 'faceswap'}><FaceSwapPanel /></div>
        <div className="create-slot" hidden={panel !== 'vectorize'}><VectorizePanel /></div>
        <div className="create-slot" hidden={panel !== 'tasks'}><TasksPanel /></div>
      </main>
    </div>
  );
}
