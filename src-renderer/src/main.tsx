import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ClientProvider } from './api/ClientContext';
import { windowClient } from './api/client';
import { ViewStateProvider } from './state/viewState';
import { ToastProvider } from './ui/Toasts';
import './styles.css';

const api = windowClient();

// Errors outside React's render (event handlers, timers, promises) go to the app's log too.
window.addEventListener('error', (e) => {
  api.reportError({ message: String(e.message).slice(0, 4000), stack: e.error instanceof Error ? e.error.stack?.slice(0, 20_000) : undefined, where: 'window' }).catch(() => undefined);
});
window.addEventListener('unhandledrejection', (e) => {
  const r: unknown = e.reason;
  api.reportError({ message: (r instanceof Error ? r.message : String(r)).slice(0, 4000), stack: r instanceof Error ? r.stack?.slice(0, 20_000) : undefined, where: 'unhandled rejection' }).catch(() => undefined);
});

// The view state is read before the first render, so the window opens as it was left.
void api
  .getViewState()
  .catch(() => ({}))
  .then((initial) => {
    createRoot(document.getElementById('root')!).render(
      <StrictMode>
        <ClientProvider api={api}>
          <ViewStateProvider api={api} initial={initial}>
            <ToastProvider>
              <App />
            </ToastProvider>
          </ViewStateProvider>
        </ClientProvider>
      </StrictMode>,
    );
  });
