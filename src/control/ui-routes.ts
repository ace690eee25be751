/**
 * The live page's routes: its files (`/ui/`, no token: they hold no data), its event stream
 * (`/ui/events`, the token as a header or `?token=`), and who is reading (`/ui/clients`).
 * The admin APIs it charts (`/ui/admins`) are operations (src/api/ops/*-admin*.ts).
 */
import type { Route } from './router.js';
import type { HasUi } from './target.js';
import { defaultUiRoot, serveUiFile } from './ui-static.js';

export function uiRoutes(target: HasUi, root = defaultUiRoot()): Route[] {
  const { ui } = target;
  return [
    {
      method: 'GET',
      path: '/ui',
      summary: 'the live page (redirects to /ui/)',
      access: 'public',
      handle: ({ query }) => {
        const search = query.size > 0 ? `?${query.toString()}` : '';
        return {
          status: 302,
          body: 'see /ui/\n',
          contentType: 'text/plain; charset=utf-8',
          headers: { location: `/ui/${search}` },
        };
      },
    },
    {
      method: 'GET',
      path: '/ui/events',
      summary: "the live page's server-sent events: a snapshot, then changes (?token=)",
      access: 'token-or-query',
      produces: 'text/event-stream',
      handle: () => ({
        status: 200,
        body: undefined,
        takeOver: (req, res) => ui.connect(req, res),
      }),
    },
    {
      method: 'GET',
      path: '/ui/clients',
      summary: 'the open live pages: buffered bytes, events dropped while behind',
      answer: { type: 'object', required: ['clients', 'listening'] },
      handle: () => ({
        status: 200,
        body: { listening: ui.listening, clients: ui.clientInfo() },
      }),
    },
    {
      method: 'GET',
      path: '/ui/*path',
      summary: "the live page's files (no token needed: they hold no data)",
      access: 'public',
      produces: 'text/html',
      handle: ({ params }) => serveUiFile(root, params.path ?? ''),
    },
  ];
}
