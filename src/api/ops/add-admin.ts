/** `POST /ui/admins`: add an Envoy admin API for the live page to chart. */
import { ADMIN, object, type AdminInfo } from '../answers.js';
import { answer, defineOperation, Refusal } from '../operation.js';

export const addAdmin = defineOperation({
  name: 'addAdmin',
  method: 'POST',
  path: '/ui/admins',
  summary: 'add an Envoy admin API for the live page to chart: {"address": "127.0.0.1:15000"}',
  invalid: 'invalid admin address',
  input: {
    address: {
      type: 'string',
      required: true,
      description: 'an Envoy admin API: 127.0.0.1:15000, localhost:15000, 15000 or http://…',
    },
  },
  output: answer<{ admin: AdminInfo }>(object({ admin: ADMIN }, ['admin'])),
  success: 201,
  run: (t, { address }) => {
    const admin = t.admins.add(address);
    return admin instanceof Refusal ? admin : { admin };
  },
});
