/**
 * Reading and replacing the resources served, at run time. A replacement is validated as a
 * whole against Envoy's protos: on any problem the answer is 400 listing every problem with
 * its field path, and the last good set keeps serving. References Envoy will reject or wait
 * on do not stop a replacement (a test may push one on purpose): the answer lists them as
 * `warnings`, in the same format.
 */
import type { SnapshotChange } from '../core/snapshot.js';
import type { ResourceSetSpec } from '../snapshot/validated-set.js';
import { shortTypeName } from '../core/types/registry.js';
import { resourceJson } from '../debug/config-dump.js';
import { problemsResponse } from './responses.js';
import type { ControlResponse, Route } from './router.js';
import type { ResourceTarget } from './target.js';
import { isObject } from '../util/guards.js';
import { RESOURCES_ANSWER, RESOURCES_BODY } from './api-schemas.js';

function describeSets(target: ResourceTarget) {
  return target.resourceSets().map((set) => ({
    name: set.name,
    ...(set.match ? { match: set.match } : {}),
    version: set.snapshot.version,
    types: Object.fromEntries(
      set.snapshot.typeUrls().map((t) => [shortTypeName(t), set.snapshot.get(t).version]),
    ),
    resources: set.snapshot
      .typeUrls()
      .flatMap((t) => [...set.snapshot.get(t).resources.values()].map(resourceJson)),
  }));
}

/** Which types changed in each set, by istiod's short names. */
function changesBySet(changes: readonly SnapshotChange[]) {
  return changes.map((c) => ({ set: c.set, changed: c.changed.map(shortTypeName) }));
}

function replace(target: ResourceTarget, body: unknown): ControlResponse {
  const shape =
    'expected {"resources": [...]} (or a bare array), or {"sets": [{name, match, resources}]}';
  const resources = Array.isArray(body) ? body : isObject(body) ? body.resources : undefined;
  if (isObject(body) && body.sets !== undefined) {
    if (!Array.isArray(body.sets) || Object.keys(body).length !== 1) {
      return problemsResponse('invalid resources', [{ path: 'sets', message: shape }]);
    }
    const result = target.setResourceSets(body.sets as ResourceSetSpec[]);
    if (!result.ok)
      return problemsResponse(
        'invalid resources (the last good set keeps serving)',
        result.problems,
      );
    return {
      status: 200,
      body: { changed: changesBySet(result.value), warnings: result.warnings },
    };
  }
  if (!Array.isArray(resources) || (isObject(body) && Object.keys(body).length !== 1)) {
    return problemsResponse('invalid resources', [{ path: '', message: shape }]);
  }
  const result = target.setResources(resources);
  if (!result.ok)
    return problemsResponse('invalid resources (the last good set keeps serving)', result.problems);
  return {
    status: 200,
    body: {
      version: result.value.snapshot.version,
      changed: result.value.changed.map(shortTypeName),
      warnings: result.warnings,
    },
  };
}

export function resourceRoutes(target: ResourceTarget): Route[] {
  return [
    {
      method: 'GET',
      path: '/control/resources',
      summary: 'the resource sets served, in canonical JSON',
      handle: () => ({ status: 200, body: { sets: describeSets(target) } }),
    },
    {
      method: 'PUT',
      path: '/control/resources',
      summary:
        'replace the resources (validated; on problems 400 and the last good set keeps serving)',
      body: RESOURCES_BODY,
      answer: RESOURCES_ANSWER,
      handle: ({ body }) => replace(target, body),
    },
    {
      method: 'POST',
      path: '/control/resources/reload',
      summary:
        'load the resource files again now (with --resources); errors keep the last good sets',
      handle: () => {
        if (target.resourceStatus().source === 'api') {
          return {
            status: 409,
            body: { error: 'this server does not serve resources from files' },
          };
        }
        const result = target.reloadResources();
        if (!result.ok)
          return problemsResponse(
            'invalid resource files (the last good sets keep serving)',
            result.problems,
          );
        return { status: 200, body: { changed: changesBySet(result.value) } };
      },
    },
  ];
}
