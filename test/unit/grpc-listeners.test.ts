/** The listeners a proxyless client's LDS without names is answered with (istiod's rule). */
import { expect, it } from 'vitest';
import { grpcWildcardListeners } from '../../src/protocol/grpc-listeners.js';
import { shortListenerNames } from '../../src/generate/ask-istiod.js';

it('keeps each service listener by its FQDN: no short form, no server listener', () => {
  expect(
    grpcWildcardListeners([
      'orders:8101',
      'orders.default.svc.cluster.local:8101',
      'orders.default:8101',
      'reviews.default.svc.cluster.local:9080',
      'api.example.com:443',
      'xds.istio.io/grpc/lds/inbound/0.0.0.0:8101',
      'orders:9999',
      'not-a-target',
    ]),
  ).toEqual([
    'api.example.com:443',
    'not-a-target',
    'orders.default.svc.cluster.local:8101',
    'orders:9999',
    'reviews.default.svc.cluster.local:9080',
  ]);
});

it('asks for the short names istiod resolves in the pod’s own namespace only', () => {
  const node = 'sidecar~10.1.0.9~client-0.default~default.svc.cluster.local';
  expect(
    shortListenerNames(
      [
        'echo.default.svc.cluster.local:7070',
        'reviews.other.svc.cluster.local:9080',
        'api.example.com:443',
        'echo.default.svc.cluster.local',
      ],
      node,
    ),
  ).toEqual(['echo:7070', 'echo.default:7070', 'echo.default.svc:7070']);
  expect(shortListenerNames(['echo.default.svc.cluster.local:7070'], 'no-tildes')).toEqual([]);
});
