import { expect } from 'vitest';
import { makeStaticCluster } from '../../src/resources/cluster.js';
import { CLUSTER_TYPE } from '../../src/xds/type-urls.js';
import { sidecarNode } from '../support/fixtures/nodes.js';
import { it } from '../support/fixtures/test.js';

/** About 150 KB of clusters whose content depends on `generation`. */
function bigResourceSet(generation: number) {
  return Array.from({ length: 50 }, (_, i) =>
    makeStaticCluster({
      name: `c${i}`,
      endpoints: Array.from({ length: 100 }, (_, j) => ({
        address: `10.${generation % 250}.${i}.${j}`,
        port: 8000 + generation,
      })),
    }),
  );
}

it('does not queue pushes for a stream that stops reading, and catches it up when it reads again', async ({
  startMock,
  connect,
}) => {
  const server = await startMock({ resources: bigResourceSet(0) });
  const client = connect(server);
  const stream = client.sotw();
  stream.send({ type_url: CLUSTER_TYPE, node: sidecarNode() });
  await stream.next();
  let sent = 0;
  server.events.on('response', () => (sent += 1));

  stream.pause();
  const pushes = 200;
  for (let generation = 1; generation <= pushes; generation++) {
    await server.control.setResources({ resources: bigResourceSet(generation) });
    await new Promise((resolve) => setImmediate(resolve));
  }
  // 200 pushes of ~150 KB each would be ~30 MB queued for one stream; with backpressure the
  // server stops after what HTTP/2 flow control and the stream's buffer accept.
  expect(sent).toBeLessThan(pushes / 2);

  const finalVersion = server.snapshot().get(CLUSTER_TYPE).version;
  stream.resume();
  let last = await stream.next();
  while (last.version_info !== finalVersion) last = await stream.next();
  expect(last.resources).toHaveLength(50);
});
