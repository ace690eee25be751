/** `POST /control/down`: close the xDS port, as when istiod goes away. */
import { xdsPortOperation } from '../xds-port-operation.js';

export const down = xdsPortOperation(
  'down',
  {
    summary: 'close the xDS port, as when istiod goes away, until POST /control/up',
    cliSummary: 'close the xDS port, as when istiod goes away (a running mock)',
    help: 'Closes the xDS port: open streams end with UNAVAILABLE, new ones are refused.',
    done: 'xDS port closed',
  },
  { variant: 'danger' },
);
