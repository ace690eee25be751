/** `GET /control/state`: whether responses are withheld, and every stream's per-type state. */
import { bool, describeStream, object, type StreamInfo } from '../answers.js';
import { answer, defineOperation } from '../operation.js';

export const state = defineOperation({
  name: 'state',
  method: 'GET',
  path: '/control/state',
  summary: 'whether responses are withheld, and every stream with its per-type state',
  input: {},
  output: answer<{ withheld: boolean; serving: boolean; streams: StreamInfo[] }>(
    object({ withheld: bool, serving: bool, streams: { type: 'array' } }, [
      'withheld',
      'serving',
      'streams',
    ]),
  ),
  run: (t) => ({
    withheld: t.withheld,
    serving: t.serving,
    streams: t.streams().map(describeStream),
  }),
});
