/** `GET /ui/admins`: the Envoy admin APIs the live page polls, and whether each answers. */
import { ADMIN, object, type AdminInfo } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const listAdmins = defineOperation({
  name: 'listAdmins',
  method: 'GET',
  path: '/ui/admins',
  summary: 'the Envoy admin APIs the live page polls, and whether each answers',
  input: {},
  output: answer<{ admins: AdminInfo[] }>(
    object({ admins: { type: 'array', items: ADMIN } }, ['admins']),
  ),
  run: (t) => ({ admins: t.admins.list() }),
});
