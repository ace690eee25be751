/**
 * The differential suite (docs/conformance.md): every case that does not push runs here,
 * concurrently, against istiod's own xDS server and against the mock.
 */
import { CASES } from './cases/index.js';
import { conformanceSuite } from './support/run.js';

conformanceSuite(CASES.filter((c) => !c.alone));
