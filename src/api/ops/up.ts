/** `POST /control/up`: open the xDS port again on the same address. */
import { xdsPortOperation } from '../xds-port-operation.js';

export const up = xdsPortOperation(
  'up',
  {
    summary: 'open the xDS port again on the same address',
    cliSummary: 'open the xDS port again (a running mock)',
    help: 'Opens the xDS port again on the same address.',
    done: 'xDS port open',
  },
  { variant: 'success' },
);
