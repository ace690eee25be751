/** `DELETE /ui/admins/:address`: stop polling an admin API added with POST /ui/admins. */
import { ADMIN, object, type AdminInfo } from '../answers.js';
import { answer, defineOperation, Refusal } from '../operation.js';

export const removeAdmin = defineOperation({
  name: 'removeAdmin',
  method: 'DELETE',
  path: '/ui/admins/:address',
  summary: 'stop polling an admin API added with POST /ui/admins',
  invalid: 'invalid admin address',
  input: { address: { type: 'string', required: true, description: 'the address as added' } },
  output: answer<{ admins: AdminInfo[] }>(
    object({ admins: { type: 'array', items: ADMIN } }, ['admins']),
  ),
  run: (t, { address }) =>
    t.admins.remove(address)
      ? { admins: t.admins.list() }
      : new Refusal(404, `no admin address "${address}" was added`),
});
