/**
 * The page's one connection to the mock: the server-sent stream `GET /ui/events`. EventSource
 * reconnects by itself; a 401 (wrong or missing token) closes it for good, and the page asks
 * for the token. EventSource cannot send headers, so the token goes in the `token` query
 * parameter.
 */
import { useEffect, useReducer, useState } from 'preact/hooks';
import { UI_EVENT_TYPES, type UiEvent } from '../../src/live/ui-events.js';
import { control, loadToken } from './api.js';
import { EMPTY_STATE, reduce } from './model/reduce.js';
import type { PageState } from './model/state.js';

export type StreamStatus = 'connecting' | 'live' | 'lost' | 'unauthorized';

/** `/ui/events`, with the token as a query parameter when there is one. */
function eventsPath(token: string): string {
  return token ? `/ui/events?${new URLSearchParams({ token }).toString()}` : '/ui/events';
}

export function eventsUrl(token: string): string {
  return new URL(eventsPath(token), window.location.origin).toString();
}

/** The page state, live; `attempt` changes (a new token) reopen the stream. */
export function useEventStream(attempt: number): { page: PageState; status: StreamStatus } {
  const [page, dispatch] = useReducer(reduce, EMPTY_STATE);
  const [status, setStatus] = useState<StreamStatus>('connecting');
  const [retry, setRetry] = useState(0);

  useEffect(() => {
    const token = loadToken();
    const source = new EventSource(eventsUrl(token));
    setStatus('connecting');
    for (const type of UI_EVENT_TYPES) {
      source.addEventListener(type, (message: MessageEvent<string>) => {
        const data: unknown = JSON.parse(message.data);
        dispatch({ type, data } as UiEvent);
        setStatus('live');
      });
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    source.onerror = () => {
      setStatus('lost');
      if (source.readyState !== EventSource.CLOSED) return;
      // EventSource gives up for good on an HTTP error: a 401 asks for the token; anything
      // else is tried again a little later.
      void control.status(eventsPath(token)).then((code) => {
        if (code === 401) setStatus('unauthorized');
        else timer = setTimeout(() => setRetry((n) => n + 1), 3000);
      });
    };
    return () => {
      clearTimeout(timer);
      source.close();
    };
  }, [attempt, retry]);

  return { page, status };
}
