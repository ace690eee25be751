/**
 * `GET /control/state`: what the library reads of a mock (`withheld`, `serving`, the profile,
 * `streams()`, the versions of `snapshot()`), over HTTP: whether responses are withheld,
 * whether the xDS port serves, the version of each type the default set serves, and every
 * stream with its per-type state (what it asked for, what it was sent, ACKed, NACKed).
 */
import { bool, describeStream, object, STREAM_INFO, type StreamInfo } from '../answers.js';
import { answer, defineOperation } from '../operation.js';
import { PROFILES, type Profile } from '../../core/profile.js';

export const state = defineOperation({
  name: 'state',
  method: 'GET',
  path: '/control/state',
  summary:
    'whether responses are withheld, the versions served, and every stream with its per-type state',
  input: {},
  output: answer<{
    withheld: boolean;
    serving: boolean;
    profile: Profile;
    versions: Record<string, string>;
    streams: StreamInfo[];
  }>(
    object(
      {
        withheld: bool,
        serving: bool,
        profile: { type: 'string', enum: [...PROFILES] },
        versions: { type: 'object', additionalProperties: { type: 'string' } },
        streams: { type: 'array', items: STREAM_INFO },
      },
      ['withheld', 'serving', 'profile', 'versions', 'streams'],
    ),
  ),
  cli: {
    verb: ['state'],
    summary: 'what a running mock serves and what each stream ACKed or NACKed',
    help:
      'Prints whether responses are withheld, the version of each type served, and every ' +
      'stream with, per type, the version sent, ACKed and NACKed. -o json prints the answer.',
    text: (a) =>
      [
        `withheld: ${a.withheld}  serving: ${a.serving}  profile: ${a.profile}`,
        `versions: ${
          Object.entries(a.versions)
            .map(([t, v]) => `${t}=${v}`)
            .join(' ') || '-'
        }`,
        ...a.streams.flatMap((s) => [
          `${s.nodeId} (${s.protocol}, ${s.connectionId})`,
          ...s.types.map(
            (t) =>
              `  ${t.typeUrl.split('.').pop() ?? t.typeUrl} sent=${t.sent ?? '-'} acked=${t.acked ?? '-'}` +
              (t.nack ? ` NACK ${t.nack.version}: ${t.nack.message}` : ''),
          ),
        ]),
      ].join('\n'),
  },
  run: (t) => ({
    withheld: t.withheld,
    serving: t.serving,
    profile: t.profile,
    versions: t.versions(),
    streams: t.openStreams().map((s) => describeStream(s, (type) => t.currentVersion(s, type))),
  }),
});
