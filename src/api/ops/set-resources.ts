/**
 * `PUT /control/resources`: replace the resources, validated as a whole against Envoy's
 * protos. On any problem it answers 400 listing every problem with its field path, and the
 * last good set keeps serving; references Envoy will reject or wait on are served all the
 * same and listed as `warnings`.
 */
import { jsonField } from '../../core/fields.js';
import {
  RESOURCE_VERSIONS,
  RESOURCES,
  RESOURCES_CHANGED,
  SETS,
  SETS_CHANGED,
  VERSIONS,
  type ResourcesChanged,
  type SetsChanged,
} from '../answers.js';
import { answer, defineOperation, Refusal } from '../operation.js';

const SHAPE =
  'expected {"resources": [...], "versions"?, "resourceVersions"?} (or a bare array), or {"sets": [{name, match, resources, versions?, resourceVersions?}]}';
const PER_SET = 'with "sets", each set names its own versions: {"sets": [{…, "versions": {…}}]}';

export const setResources = defineOperation({
  name: 'setResources',
  method: 'PUT',
  path: '/control/resources',
  summary: 'replace the resources (validated; on problems 400 and the last good set keeps serving)',
  invalid: 'invalid resources',
  input: {
    resources: jsonField(RESOURCES, 'the default set: Envoy resources'),
    sets: jsonField(SETS, 'every set, each with its node match'),
    versions: jsonField(
      VERSIONS,
      'the version to serve each type with ({"CDS": "2"}); types not named get the push\'s',
    ),
    resourceVersions: jsonField(
      RESOURCE_VERSIONS,
      'delta xDS: the version of each resource ({"CDS": {"<name>": "2"}})',
    ),
  },
  bodyField: 'resources',
  output: answer<ResourcesChanged | SetsChanged>({
    oneOf: [RESOURCES_CHANGED, SETS_CHANGED],
  }),
  cli: {
    verb: ['resources', 'set'],
    summary: 'replace the resources a running mock serves, from a resource file',
    help: 'Replaces the resources served with those of a resource file (YAML or JSON, as\n--resources reads). On any problem nothing changes and every problem is printed.',
    text: (a) =>
      'version' in a
        ? `resources set: version ${a.version}, changed ${a.changed.join(', ') || 'nothing'}${warned(a.warnings.length)}`
        : `resource sets set: ${a.changed.map((c) => `${c.set} (${c.changed.join(', ') || 'unchanged'})`).join('; ')}${warned(a.warnings?.length ?? 0)}`,
    file: { field: 'resources', help: 'the resource file (a path, or - for standard input)' },
  },
  run: (t, { resources, sets, versions, resourceVersions }) => {
    if (sets !== undefined) {
      if (resources !== undefined || !Array.isArray(sets)) {
        return new Refusal(400, `invalid resources: sets: ${SHAPE}`, [
          { path: 'sets', message: SHAPE },
        ]);
      }
      const misplaced = (['versions', 'resourceVersions'] as const).filter(
        (field) => ({ versions, resourceVersions })[field] !== undefined,
      );
      if (misplaced.length > 0) {
        const problems = misplaced.map((path) => ({ path, message: PER_SET }));
        return new Refusal(400, `invalid resources: ${PER_SET}`, problems);
      }
      return t.setResourceSets(sets);
    }
    if (!Array.isArray(resources)) {
      return new Refusal(400, `invalid resources: ${SHAPE}`, [{ path: '', message: SHAPE }]);
    }
    return t.setResources(resources, { versions, resourceVersions });
  },
});

function warned(count: number): string {
  return count > 0 ? `; ${count} warning(s)` : '';
}
