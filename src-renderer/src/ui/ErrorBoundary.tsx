import { Component, type ErrorInfo, type ReactNode } from 'react';
import type { Client } from '../api/client';
import { Button } from './primitives';

// One per view: an exception while rendering a view shows what happened there, instead of
// blanking the window, and "Reload view" mounts the view again from scratch. The error goes
// to the app's log (through the Api) with its component stack.

interface Props {
  view: string;
  api: Pick<Client, 'reportError'>;
  children: ReactNode;
}

interface State {
  error: Error | null;
  generation: number;
}

export class ViewErrorBoundary extends Component<Props, State> {
  override state: State = { error: null, generation: 0 };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    const e = error instanceof Error ? error : new Error(String(error));
    this.props.api
      .reportError({ message: e.message.slice(0, 4000), stack: `${e.stack ?? ''}\n${info.componentStack ?? ''}`.slice(0, 20_000), where: `${this.props.view} view` })
      .catch(() => undefined);
  }

  private reload = (): void => {
    this.setState((s) => ({ error: null, generation: s.generation + 1 }));
  };

  override render(): ReactNode {
    const { error, generation } = this.state;
    if (error) {
      return (
        <div className="page" data-testid="view-error" data-view={this.props.view}>
          <div className="empty-state view-error" role="alert">
            <h2>Something went wrong in {this.props.view}</h2>
            <p>
              This part of the window stopped working: <span className="muted">{error.message}</span>
            </p>
            <p className="muted small">Your library and your changes are safe. The error was written to the log.</p>
            <Button onClick={this.reload} data-testid="reload-view">
              Reload view
            </Button>
          </div>
        </div>
      );
    }
    // A new key on reload: the view starts from scratch rather than from the state that broke it.
    return <ViewErrorBoundaryContent key={generation}>{this.props.children}</ViewErrorBoundaryContent>;
  }
}

function ViewErrorBoundaryContent({ children }: { children: ReactNode }) {
  return <>{children}</>;
}
