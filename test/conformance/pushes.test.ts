/**
 * The differential suite's pushing cases (docs/conformance.md): a push reaches every stream of
 * both servers, so these cases run one after another, each against its own pair of servers'
 * streams, after nothing else.
 */
import { CASES } from './cases/index.js';
import { conformanceSuite } from './support/run.js';

conformanceSuite(
  CASES.filter((c) => c.alone),
  { concurrent: false },
);
