/**
 * Proxies that record every version they are sent: each keeps one SotW stream open (CDS and
 * LDS, every response ACKed), opens a new one when the server ends it, and notes any
 * response whose push counter (`<time>/<n>`) is lower than the one before it on the same
 * stream and type. Used by the reliability runs that change the server under live streams.
 */
import {
  AdsTestClient,
  type AdsTestStream,
  type ClientResponse,
} from '../../src/testing/ads-client.js';
import { CLUSTER_TYPE, LISTENER_TYPE } from '../../src/xds/type-urls.js';
import { ack } from './handshake.js';
import { sidecarNode } from './nodes.js';

/** The push counter of an istiod-style version (`2026-12-01T10:00:00Z/7` → 7). */
export function pushCounter(version: string): number {
  return Number(version.slice(version.lastIndexOf('/') + 1));
}

export interface RecordedStream {
  proxy: number;
  /** Every version received, per type URL, in order. */
  versions: Map<string, string[]>;
  /** The resources of the last response, per type URL. */
  lastResources: Map<string, number>;
}

export class VersionRecorder {
  readonly streams: RecordedStream[] = [];
  /** "proxy 3 CDS: …/12 after …/14", one per version that went back. */
  readonly backwards: string[] = [];
  private readonly client: AdsTestClient;
  private readonly live = new Map<number, AdsTestStream>();
  private stopped = false;

  /** `onResponse` sees every response before it is ACKed. */
  constructor(
    address: string,
    private readonly onResponse?: (proxy: number, response: ClientResponse) => void,
  ) {
    this.client = new AdsTestClient(address);
  }

  /** Starts `count` proxies (ids from 0). */
  start(count: number): void {
    for (let proxy = 0; proxy < count; proxy++) this.open(proxy);
  }

  get responses(): number {
    let total = 0;
    for (const s of this.streams) for (const v of s.versions.values()) total += v.length;
    return total;
  }

  /** The last version each live proxy holds for `typeUrl`. */
  latest(typeUrl: string): (string | undefined)[] {
    return [...this.live.keys()].map((proxy) => {
      const stream = this.streams.findLast((s) => s.proxy === proxy);
      return stream?.versions.get(typeUrl)?.at(-1);
    });
  }

  private open(proxy: number): void {
    if (this.stopped) return;
    const stream = this.client.sotw();
    const record: RecordedStream = { proxy, versions: new Map(), lastResources: new Map() };
    this.streams.push(record);
    this.live.set(proxy, stream);
    const node = sidecarNode(`proxy-${proxy}`);
    stream.send({ type_url: CLUSTER_TYPE, node });
    stream.send({ type_url: LISTENER_TYPE });
    void this.read(stream, record).then(() => {
      if (this.live.get(proxy) === stream) this.live.delete(proxy);
      this.open(proxy);
    });
  }

  private async read(stream: AdsTestStream, record: RecordedStream): Promise<void> {
    for (;;) {
      let response;
      try {
        response = await stream.next(60_000);
      } catch {
        return;
      }
      const seen = record.versions.get(response.type_url) ?? [];
      const before = seen.at(-1);
      if (before !== undefined && pushCounter(response.version_info) < pushCounter(before)) {
        const type = response.type_url.split('.').pop();
        this.backwards.push(
          `proxy ${record.proxy} ${type}: ${response.version_info} after ${before}`,
        );
      }
      seen.push(response.version_info);
      record.versions.set(response.type_url, seen);
      record.lastResources.set(response.type_url, response.resources.length);
      this.onResponse?.(record.proxy, response);
      ack(stream, response);
    }
  }

  close(): void {
    this.stopped = true;
    this.client.close();
  }
}
