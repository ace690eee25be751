/**
 * The control actions a test suite drives: `MockIstiodControl`, one asynchronous interface
 * reached two ways, `mock.control` (the same as `localControl(mock)`) for a mock in this
 * process and `connectMockIstiod(url)` (remote.ts) for one elsewhere, with the same methods
 * and the same refusals (src/api/control.ts). A test written against it runs against either.
 */
import type { MockIstiodControl } from '../api/control.js';
import type { MockIstiod } from '../app/mock-istiod-api.js';

export { withFaultHandles, type ControlFault, type MockIstiodControl } from '../api/control.js';

/** The control interface of a mock running in this process: its `control`. */
export function localControl(mock: Pick<MockIstiod, 'control'>): MockIstiodControl {
  return mock.control;
}
