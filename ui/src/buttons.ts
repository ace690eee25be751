/**
 * The page's message for each control operation with a button (src/api/table.ts: `button`);
 * test/unit/operations-table.test.ts checks that none is missing.
 */
import type { OperationName } from '../../src/api/table.js';
import type { MessageKey } from './messages.js';

/** The page's message for each operation with a button (a unit test checks none is missing). */
export const BUTTON_LABELS = {
  withhold: 'controls.withhold',
  release: 'controls.release',
  down: 'controls.down',
  up: 'controls.up',
} as const satisfies Partial<Record<OperationName, MessageKey>>;
