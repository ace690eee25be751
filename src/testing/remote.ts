/**
 * `connectMockIstiod(url, { token })`: drive a mock istiod that runs elsewhere (a container,
 * another machine, `mock-istiod serve` in another terminal) over its control API, with the
 * same methods as `mock.control` (src/api/control.ts). A refusal throws `CONTROL_REFUSED` with
 * its status and every problem, as in process; a mock that cannot be asked throws
 * `CONTROL_API_FAILED`.
 *
 *   const istiod = await connectMockIstiod('http://127.0.0.1:15014');
 *   await istiod.withFault({ scenario: 'down' }, async () => { … });
 */
import { createControlClient } from '../api/client.js';
import { operationMethods } from '../api/methods.js';
import { withFaultHandles, type MockIstiodControl } from '../api/control.js';

export interface ConnectOptions {
  /** The bearer token the mock requires (`--control-token`), if any. */
  token?: string;
  /** How long one request may take (default 10 s). */
  timeoutMs?: number;
}

/**
 * Connects to the control API at `url` (`http://host:15014`) and checks that a mock answers
 * there (`GET /ready`) and takes the token (`GET /control/state`: `/ready` needs none);
 * rejects with `CONTROL_API_FAILED` (or `CONTROL_REFUSED` for a token it turns down)
 * otherwise.
 */
export async function connectMockIstiod(
  url: string,
  options: ConnectOptions = {},
): Promise<MockIstiodControl> {
  const client = createControlClient({ baseUrl: url, ...options });
  await client.call('ready');
  await client.call('state');
  return withFaultHandles(operationMethods((op, input) => client.run(op, input)));
}
