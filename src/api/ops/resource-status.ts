/** `GET /debug/resources`: where resources come from and how the last load went. */
import type { ResourceStatus } from '../../resources/status.js';
import { answer, defineOperation } from '../operation.js';

export const resourceStatus = defineOperation({
  name: 'resourceStatus',
  method: 'GET',
  path: '/debug/resources',
  summary: 'where resources come from, their warnings, and the last failed reload',
  input: {},
  output: answer<ResourceStatus>({ type: 'object', required: ['source', 'loadedAt', 'warnings'] }),
  run: (t) => t.resourceStatus(),
});
