/**
 * What each injection value becomes in a real Envoy's config_dump (docs/generate.md): one row
 * per value, naming the listener or cluster it turns into, or saying plainly that it is no
 * Envoy object at all; and, for two configurations (the hand-built lab's and istiod's own),
 * where they differ and why.
 */
import type { DumpFacts, ListenerFact } from './dump-facts.js';
import type { InjectionValues } from './injection-values.js';

export interface ExplainRow {
  /** Which value: `outbound capture`, `inbound capture`, … */
  what: string;
  /** As injection writes it: `istio-init -p 15001`. */
  value: string;
  /** The Envoy objects it becomes here, by name (empty: none). */
  objects: string[];
  /** In words: what it is in this config_dump. */
  becomes: string;
}

export interface Explained {
  label: string;
  rows: ExplainRow[];
  /** Where unmatched outbound connections go: `BlackHoleCluster`, `PassthroughCluster`, … */
  unknownDestination: string | undefined;
  outboundListener: ListenerFact | undefined;
  inboundListener: ListenerFact | undefined;
}

const UNKNOWN = ['PassthroughCluster', 'BlackHoleCluster'];

export function explainDump(label: string, facts: DumpFacts, v: InjectionValues): Explained {
  const onPort = (port: number) => facts.listeners.filter((l) => l.port === port);
  const named = (name: string) => facts.listeners.find((l) => l.name === name);
  const outbound = onPort(v.outboundCapturePort)[0] ?? named('virtualOutbound');
  const inbound = onPort(v.inboundCapturePort)[0] ?? named('virtualInbound');
  const unknownDestination = outbound ? catchAll(outbound) : undefined;
  const rows: ExplainRow[] = [
    captureRow(
      'outbound capture',
      `istio-init -p ${v.outboundCapturePort}`,
      v.outboundCapturePort,
      outbound,
      facts,
    ),
    captureRow(
      'inbound capture',
      `istio-init -z ${v.inboundCapturePort}`,
      v.inboundCapturePort,
      inbound,
      facts,
    ),
    uidRow(v, facts, outbound),
    modeRow(v, facts),
    ...v.excludedInboundPorts.map((port) => excludedRow(port, v, onPort(port))),
  ];
  if (outbound && unknownDestination)
    rows.push({
      what: 'unknown destination',
      value: 'outboundTrafficPolicy',
      objects: [unknownDestination],
      becomes: `${outbound.name}'s catch-all sends to ${unknownDestination} (${facts.clusters.get(unknownDestination) ?? 'not in the dump'})${
        unknownDestination === 'BlackHoleCluster'
          ? ': no endpoints, so every call to an unknown host gets 503 (REGISTRY_ONLY, or the lab)'
          : ': to the original destination, as if there were no proxy (ALLOW_ANY)'
      }`,
    });
  return { label, rows, unknownDestination, outboundListener: outbound, inboundListener: inbound };
}

function describe(l: ListenerFact): string {
  return `listener ${l.name} ${l.direction} ${l.address}:${l.port}`;
}

function catchAll(l: ListenerFact): string | undefined {
  return (
    l.defaultClusters.find((c) => UNKNOWN.includes(c)) ??
    l.clusters.find((c) => UNKNOWN.includes(c)) ??
    l.defaultClusters[0]
  );
}

function captureRow(
  what: string,
  value: string,
  port: number,
  l: ListenerFact | undefined,
  facts: DumpFacts,
): ExplainRow {
  if (!l)
    return { what, value, objects: [], becomes: `no listener on ${port} and none named like one` };
  const how = l.useOriginalDst
    ? 'use_original_dst: each connection goes to the listener of its original destination'
    : l.originalDstFilter
      ? 'original_dst listener filter: chains match the original destination port'
      : 'no original destination read: every connection takes its own chains';
  const sends = l.clusters.map((c) => `${c} (${facts.clusters.get(c) ?? '?'})`).join(', ');
  const moved = l.port !== port ? `; NOT on ${port}: iptables' ${port} reaches nothing here` : '';
  return {
    what,
    value,
    objects: [l.name, ...l.clusters],
    becomes: `${describe(l)}, ${how}; sends to ${sends || 'no cluster'}${moved}`,
  };
}

function uidRow(
  v: InjectionValues,
  facts: DumpFacts,
  outbound: ListenerFact | undefined,
): ExplainRow {
  const passthrough = facts.clusters.has('InboundPassthroughCluster')
    ? ['InboundPassthroughCluster']
    : [];
  const loop = outbound?.loopClusters ?? [];
  const guard =
    outbound && loop.length > 0
      ? `; ${outbound.name} sends a connection whose original destination is ${outbound.port} itself (a loop) to ${loop.join(', ')}`
      : '';
  const inbound =
    passthrough.length > 0
      ? '; InboundPassthroughCluster binds 127.0.0.6 for the same reason on the way in'
      : '';
  return {
    what: 'UID excluded',
    value: `istio-init -u ${v.proxyUid}`,
    objects: [...passthrough, ...loop],
    becomes: `no Envoy object: an iptables owner match. Envoy runs as UID ${v.proxyUid} (runAsUser), so the connections it opens to clusters are not captured again${guard}${inbound}`,
  };
}

function modeRow(v: InjectionValues, facts: DumpFacts): ExplainRow {
  const transparent = facts.listeners.filter((l) => l.transparent).map((l) => l.name);
  return {
    what: 'mode',
    value: `istio-init -m ${v.mode}`,
    objects: transparent,
    becomes:
      transparent.length === 0
        ? 'no listener is transparent: REDIRECT (NAT) keeps the original destination for SO_ORIGINAL_DST; TPROXY would need transparent: true'
        : `transparent listeners (${transparent.join(', ')}): TPROXY's`,
  };
}

function excludedRow(port: number, v: InjectionValues, here: ListenerFact[]): ExplainRow {
  const role =
    port === v.readinessPort
      ? 'the readiness probe (Envoy healthz)'
      : port === v.envoyPromPort
        ? "Envoy's Prometheus stats (http-envoy-prom)"
        : port === v.mergedMetricsPort
          ? "pilot-agent's merged metrics (prometheus.io/port)"
          : 'a port';
  const where =
    here.length > 0
      ? here.map((l) => `${describe(l)} (${l.origin})`).join(', ')
      : port === v.mergedMetricsPort
        ? 'no Envoy listener: pilot-agent serves it'
        : "no listener here: in a real sidecar it is a static listener of pilot-agent's bootstrap";
  return {
    what: `inbound ${port} excluded`,
    value: `istio-init -d …${port}…`,
    objects: here.map((l) => l.name),
    becomes: `${role}; not captured, so a probe reaches it directly, not through virtualInbound; ${where}`,
  };
}

/** Where two configurations differ on these values, and why. */
export function compare(a: Explained, b: Explained, v: InjectionValues): string[] {
  const out: string[] = [];
  const ao = a.outboundListener;
  const bo = b.outboundListener;
  if (ao && bo && ao.port !== bo.port)
    out.push(
      `outbound: ${a.label} ${ao.name} on ${ao.port}, ${b.label} ${bo.name} on ${bo.port}. ` +
        `Only ${v.outboundCapturePort} is where iptables (-p) sends outbound traffic; a listener elsewhere ` +
        `is reached only by connecting to it directly (the lab pod has no iptables, so its ${ao.port === v.outboundCapturePort ? bo.port : ao.port} is a port you curl).`,
    );
  if (ao && bo && ao.useOriginalDst !== bo.useOriginalDst)
    out.push(
      `use_original_dst: ${a.label} ${String(ao.useOriginalDst)}, ${b.label} ${String(bo.useOriginalDst)}. ` +
        "istiod's virtualOutbound hands each redirected connection to the listener of its original destination (0.0.0.0_8101 …); without iptables there is none to hand over.",
    );
  if (a.unknownDestination !== b.unknownDestination)
    out.push(
      `unknown destinations: ${a.label} → ${a.unknownDestination ?? 'none'}, ${b.label} → ${b.unknownDestination ?? 'none'}. ` +
        'istiod picks PassthroughCluster under outboundTrafficPolicy ALLOW_ANY (its default) and BlackHoleCluster under REGISTRY_ONLY; the lab always uses BlackHoleCluster.',
    );
  const ai = a.inboundListener;
  const bi = b.inboundListener;
  if (ai && bi && ai.port === bi.port && ai.originalDstFilter !== bi.originalDstFilter)
    out.push(
      `inbound: both on ${ai.port}; ${ai.originalDstFilter ? a.label : b.label} matches chains on the original destination port (original_dst filter), ` +
        `${ai.originalDstFilter ? b.label : a.label} sends everything to ${(ai.originalDstFilter ? bi : ai).clusters.join(', ')}.`,
    );
  if (ao && bo && ao.address !== bo.address)
    out.push(
      `address: ${a.label} ${ao.address}, ${b.label} ${bo.address}: istiod binds every address of the pod; the lab, loopback only.`,
    );
  return out;
}

/** The rows as text, one block per configuration, then the differences. */
export function formatExplained(
  all: readonly Explained[],
  differences: readonly string[],
): string[] {
  const lines: string[] = [];
  for (const e of all) {
    lines.push(`${e.label}:`);
    const width = Math.max(...e.rows.map((r) => r.value.length));
    for (const r of e.rows) lines.push(`  ${r.value.padEnd(width)}  ${r.what}: ${r.becomes}`);
  }
  if (differences.length > 0) {
    lines.push('differences:');
    for (const d of differences) lines.push(`  - ${d}`);
  }
  return lines;
}
