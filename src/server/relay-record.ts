/**
 * `serve --relay … --record <file>`: what istiod sent each proxy, as JSON lines, one per
 * response, with its time: the shareable artifact of a bug report ("this is what istiod sent
 * my pod"), which `serve --replay <file>` serves with no istiod (app/replay.ts).
 *
 *   {"at":"…","node":"sidecar~…","protocol":"sotw","typeUrl":"…","version":"…","nonce":"…",
 *    "resources":[{"@type":"…", …}],"removed":[]}
 *
 * Resources are written in proto3 JSON, as resource files are. Writing never blocks a stream:
 * lines wait in the file stream's buffer, and past `maxBufferedBytes` (a disk far slower than
 * istiod), or past `maxBytes` in all (a recording left running), further lines are dropped and
 * counted.
 */
import { createWriteStream, openSync, type WriteStream } from 'node:fs';
import type { PackedResource } from '../xds/wire.js';
import { toJson } from '../xds/json.js';
import { envoyRoot } from '../xds/protos.js';
import { MockIstiodError } from '../util/errors.js';

export interface RecordedResponse {
  at: string;
  node: string;
  protocol: 'sotw' | 'delta';
  typeUrl: string;
  version: string;
  nonce: string;
  resources: unknown[];
  removed: string[];
}

export interface RelayRecorder {
  readonly path: string;
  /** Responses written, and dropped (the disk behind, or the size cap reached). */
  readonly written: number;
  readonly dropped: number;
  record(node: string, protocol: 'sotw' | 'delta', response: RecordInput): void;
  close(): Promise<void>;
}

export interface RecordInput {
  typeUrl: string;
  version: string;
  nonce: string;
  resources: readonly PackedResource[];
  removed?: readonly string[];
}

const DEFAULT_MAX_BUFFERED = 64 * 1024 * 1024;
const DEFAULT_MAX_BYTES = 1024 * 1024 * 1024;

/** Opens (and truncates) the file now, so that a bad path fails before anything runs. */
export function openRelayRecorder(
  path: string,
  limits: { maxBufferedBytes?: number; maxBytes?: number } = {},
): RelayRecorder {
  let fd: number;
  try {
    fd = openSync(path, 'w');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new MockIstiodError('USAGE', `--record: cannot write ${path}: ${reason}`);
  }
  const stream: WriteStream = createWriteStream(path, { fd });
  const maxBuffered = limits.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  let [written, dropped, bytes] = [0, 0, 0];
  let failed = false;
  stream.on('error', () => (failed = true));
  return {
    path,
    get written() {
      return written;
    },
    get dropped() {
      return dropped;
    },
    record(node, protocol, response) {
      if (failed || stream.writableLength > maxBuffered || bytes > maxBytes) {
        dropped += 1;
        return;
      }
      const line: RecordedResponse = {
        at: new Date().toISOString(),
        node,
        protocol,
        typeUrl: response.typeUrl,
        version: response.version,
        nonce: response.nonce,
        resources: response.resources.map(resourceJson),
        removed: [...(response.removed ?? [])],
      };
      const text = `${JSON.stringify(line)}\n`;
      bytes += text.length;
      written += 1;
      stream.write(text);
    },
    close: () => new Promise((resolve) => stream.end(() => resolve())),
  };
}

/** A resource in proto3 JSON with its `@type`, as a resource file holds it. */
function resourceJson(resource: PackedResource): unknown {
  const type = envoyRoot().lookupType(
    resource.typeUrl.slice(resource.typeUrl.lastIndexOf('/') + 1),
  );
  return { '@type': resource.typeUrl, ...(toJson(type, type.decode(resource.value)) as object) };
}
