import structPb from 'google-protobuf/google/protobuf/struct_pb.js';
import { describe, expect, test } from 'vitest';
import { envoyRoot } from '../../src/xds/protos.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { decodeDiscoveryRequest, encodeDiscoveryRequest } from '../../src/xds/wire.js';

// Node metadata the way pilot-agent sends it, plus every kind a Struct value can hold.
const METADATA = {
  CLUSTER_ID: 'Kubernetes',
  ISTIO_VERSION: '1.28.0',
  INSTANCE_IPS: '10.0.0.1,fd00::1',
  ENVOY_STATUS_PORT: 15021,
  LABELS: { app: 'orders', version: 'v1', 'security.istio.io/tlsMode': 'istio' },
  PLATFORM_METADATA: {},
  EMPTY_LIST: [],
  MIXED: [1, -2.5, 'three', true, false, null, { nested: [[]] }],
  NOTHING: null,
  UNICODE: 'prüfung ✓',
};

describe('node metadata decoding', () => {
  test('gives what google-protobuf Struct.toJavaScript() gives', () => {
    const bytes = encodeDiscoveryRequest({
      type_url: CLUSTER_TYPE,
      node: {
        id: 'sidecar~10.0.0.1~orders-0.default~default.svc.cluster.local',
        cluster: 'orders.default',
        metadata: METADATA,
        user_agent_name: 'envoy',
        user_agent_version: '',
      },
    });
    const decoded = decodeDiscoveryRequest(bytes).node?.metadata;
    const reference = structPb.Struct.deserializeBinary(
      structPb.Struct.fromJavaScript(METADATA).serializeBinary(),
    ).toJavaScript();
    expect(decoded).toEqual(reference);
    expect(decoded).toEqual(METADATA);
  });

  test('a node without metadata decodes to an empty object', () => {
    const bytes = encodeDiscoveryRequest({
      type_url: CLUSTER_TYPE,
      node: {
        id: 'sidecar~10.0.0.1~a.b~b.svc.cluster.local',
        cluster: '',
        metadata: {},
        user_agent_name: '',
        user_agent_version: '',
      },
    });
    expect(decodeDiscoveryRequest(bytes).node?.metadata).toEqual({});
  });

  test('keys come out sorted at every level, whatever order the client sent them in', () => {
    // Go's proto.Marshal writes a Struct's map in a random order; protobufjs keeps the order
    // of the object it encodes, so these two requests carry the same fields in two orders.
    const request = envoyRoot().lookupType('envoy.service.discovery.v3.DiscoveryRequest');
    const str = (stringValue: string) => ({ stringValue });
    const encode = (fields: Record<string, unknown>) =>
      request
        .encode(
          request.fromObject({
            type_url: CLUSTER_TYPE,
            node: { id: 'sidecar~10.0.0.1~a.b~b.svc.cluster.local', metadata: { fields } },
          }),
        )
        .finish();
    const labels = (keys: string[]) => ({
      structValue: { fields: Object.fromEntries(keys.map((k) => [k, str(k)])) },
    });
    const one = encode({ NAME: str('a'), CLUSTER_ID: str('K'), LABELS: labels(['b', 'a']) });
    const two = encode({ LABELS: labels(['a', 'b']), CLUSTER_ID: str('K'), NAME: str('a') });
    for (const bytes of [one, two]) {
      const metadata = decodeDiscoveryRequest(bytes).node?.metadata ?? {};
      expect(Object.keys(metadata)).toEqual(['CLUSTER_ID', 'LABELS', 'NAME']);
      expect(Object.keys(metadata.LABELS as object)).toEqual(['a', 'b']);
    }
  });
});
