/**
 * The live page's routes: its files (`/ui/`, no token: they hold no data), its event stream
 * (`/ui/events`, the token as a header or `?token=`), the Envoy admin APIs it charts
 * (`/ui/admins`), and who is reading (`/ui/clients`).
 */
import { isObject } from '../util/guards.js';
import { notFound, problemsResponse } from './responses.js';
import type { Route } from './router.js';
import type { HasUi } from './target.js';
import { parseAdminAddress } from '../live/ui-admins.js';
import { defaultUiRoot, serveUiFile } from './ui-static.js';

const ADMIN_BODY = {
  type: 'object',
  required: ['address'],
  additionalProperties: false,
  properties: {
    address: {
      type: 'string',
      description: 'an Envoy admin API: 127.0.0.1:15000, localhost:15000, 15000 or http://…',
    },
  },
};

const ADMINS_ANSWER = { type: 'object', required: ['admins'] };

function readAddress(body: unknown) {
  if (!isObject(body)) {
    return { ok: false as const, problems: [{ path: '', message: 'expected {"address": …}' }] };
  }
  const unknown = Object.keys(body).filter((key) => key !== 'address');
  if (unknown.length > 0) {
    const problems = unknown.map((path) => ({ path, message: 'unknown field; expected address' }));
    return { ok: false as const, problems };
  }
  return parseAdminAddress(body.address);
}

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
      path: '/ui/admins',
      summary: 'the Envoy admin APIs the live page polls, and whether each answers',
      answer: ADMINS_ANSWER,
      handle: () => ({ status: 200, body: { admins: ui.admins.list() } }),
    },
    {
      method: 'POST',
      path: '/ui/admins',
      summary: 'add an Envoy admin API for the live page to chart: {"address": "127.0.0.1:15000"}',
      body: ADMIN_BODY,
      answer: { type: 'object', required: ['admin'] },
      success: 201,
      handle: ({ body }) => {
        const address = readAddress(body);
        if (!address.ok) return problemsResponse('invalid admin address', address.problems);
        const admin = ui.admins.add(address.value);
        ui.adminsChanged();
        return { status: 201, body: { admin } };
      },
    },
    {
      method: 'DELETE',
      path: '/ui/admins/:address',
      summary: 'stop polling an admin API added with POST /ui/admins',
      answer: ADMINS_ANSWER,
      handle: ({ params }) => {
        const address = parseAdminAddress(params.address);
        if (!address.ok || !ui.admins.remove(address.value)) {
          return notFound(`no admin address "${params.address}" was added`);
        }
        ui.adminsChanged();
        return { status: 200, body: { admins: ui.admins.list() } };
      },
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
