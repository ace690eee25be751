/**
 * Every route of the control API, in one list. A concern adds its routes file here.
 */
import type { MockIstiod } from '../server/mock-istiod.js';
import { controlRoutes } from './control-routes.js';
import type { Route } from './router.js';

export function allRoutes(server: MockIstiod): Route[] {
  return [...controlRoutes(server)];
}
