import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ClientProvider } from './api/ClientContext';
import { windowClient } from './api/client';
import { ToastProvider } from './ui/Toasts';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ClientProvider api={windowClient()}>
      <ToastProvider>
        <App />
      </ToastProvider>
    </ClientProvider>
  </StrictMode>,
);
