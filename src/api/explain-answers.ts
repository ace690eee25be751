/**
 * The answers of `explain` (`GET /ui/explain`, `mock-istiod explain`): each injection value and
 * what it became in a real Envoy's config_dump, in their API shape and JSON Schema.
 */
import type { JsonSchema } from '../core/fields.js';
import { object, str } from './answers.js';

/** One injection value and what it became in a real Envoy's config_dump (`explain`). */
export interface ExplainRowInfo {
  /** Which value: `outbound capture`, `inbound capture`, `UID excluded`, … */
  what: string;
  /** As injection writes it: `istio-init -p 15001`. */
  value: string;
  /** The Envoy objects (listeners, clusters) it becomes, by name; empty: none. */
  objects: string[];
  /** In words (English, as `mock-istiod explain` prints it). */
  becomes: string;
}

/** One proxy's config_dump, explained. */
export interface ExplainedConfig {
  /** The proxy's pod name, or the admin address asked for. */
  label: string;
  /** The node id, when the config_dump is a connected proxy's. */
  nodeId?: string;
  /** The admin API the config_dump was read from: `http://127.0.0.1:15000`. */
  admin: string;
  rows: ExplainRowInfo[];
  /** Where unmatched outbound connections go: `BlackHoleCluster`, `PassthroughCluster`, … */
  unknownDestination?: string;
}

/** Where explain's injection values came from (`mock-istiod explain` prints the same line). */
export interface ExplainValuesInfo {
  /** `seed`: the seed's table; `inject`: the real istioctl kube-inject of the lab's Deployment. */
  source: 'seed' | 'inject';
  description: string;
  /** Each value that differs from the seed's: `<what>: <injected> (seed <seed>)`. */
  differences: string[];
}

/** `GET /ui/explain`: each configuration's rows, and with two, where they differ and why. */
export interface ExplainAnswer {
  values: ExplainValuesInfo;
  configurations: ExplainedConfig[];
  differences: string[];
}

/** The sources of injection values explain can use. */
export const EXPLAIN_VALUE_SOURCES = ['seed', 'inject'] as const;

/** Which proxies' Envoys to explain: by node id, or by admin address. */
export interface ExplainQuery {
  proxies: readonly string[];
  admins: readonly string[];
  /** Where the injection values come from (default `seed`). */
  values?: 'seed' | 'inject';
}

const strs = { type: 'array', items: str } as const;

export const EXPLAIN_ROW: JsonSchema = object(
  { what: str, value: str, objects: strs, becomes: str },
  ['what', 'value', 'objects', 'becomes'],
);

export const EXPLAINED: JsonSchema = object(
  {
    values: object(
      {
        source: { type: 'string', enum: [...EXPLAIN_VALUE_SOURCES] },
        description: str,
        differences: strs,
      },
      ['source', 'description', 'differences'],
    ),
    configurations: {
      type: 'array',
      items: object(
        {
          label: str,
          nodeId: str,
          admin: str,
          rows: { type: 'array', items: EXPLAIN_ROW },
          unknownDestination: str,
        },
        ['label', 'admin', 'rows'],
      ),
    },
    differences: strs,
  },
  ['values', 'configurations', 'differences'],
);
