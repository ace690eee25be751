/**
 * The page's one connection to the mock: the server-sent stream `GET /ui/events`. EventSource
 * reconnects by itself; a 401 (wrong or missing token) closes it for good, and the page asks
 * for the token. EventSource cannot send headers, so the token goes in the `token` query
 * parameter.
 */
import { useEffect, useReducer, useState } from 'preact/hooks';
import { UI_EVENT_TYPES, type UiEvent } from '../../src/live/ui-events.js';
import { loadToken } from './api.js';
import { EMPTY_STATE, reduce } from './model/reduce.js';
import type { PageState } from './model/state.js';

export type StreamStatus = 'connecting' | 'live' | 'lost' | 'unauthorized';

export function eventsUrl(token: string): string {
  const url = new URL('/ui/events', window.location.origin);
  if (token) url.searchParams.set('token', token);
  return url.toString();
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
      void statusOf(eventsUrl(token)).then((code) => {
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

/** The HTTP status of a GET (the body, a stream when it succeeds, is not read). */
async function statusOf(url: string): Promise<number> {
  try {
    const response = await fetch(url);
    await response.body?.cancel();
    return response.status;
  } catch {
    return 0;
  }
}
