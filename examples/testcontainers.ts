// examples/testcontainers.ts (docs/container.md; test/e2e/testcontainers.test.ts runs this file)
import { GenericContainer, Wait } from 'testcontainers';
import { AdsTestClient, CLUSTER_TYPE, connectMockIstiod, freePorts } from 'mock-istiod/testing';

// Host networking maps no ports: the mock listens on two free ones, named in its environment.
const [xdsPort, controlPort] = await freePorts(2);
const image = process.env['MOCK_ISTIOD_IMAGE'] ?? 'localhost/mock-istiod:latest';
const container = await new GenericContainer(image)
  .withNetworkMode('host')
  .withEnvironment({
    MOCK_ISTIOD_CONTROL_TOKEN: 'change-me',
    MOCK_ISTIOD_HOST: '127.0.0.1',
    MOCK_ISTIOD_PORT: String(xdsPort),
    MOCK_ISTIOD_CONTROL_HOST: '127.0.0.1',
    MOCK_ISTIOD_CONTROL_PORT: String(controlPort),
  })
  .withWaitStrategy(Wait.forLogMessage('mock istiod is serving'))
  .withStartupTimeout(30_000)
  .start();
const ads = new AdsTestClient(`127.0.0.1:${xdsPort}`);
try {
  const istiod = await connectMockIstiod(`http://127.0.0.1:${controlPort}`, { token: 'change-me' });
  const stream = ads.sotw();
  await istiod.withFault({ scenario: 'withhold' }, async () => {
    // A sidecar asks for its clusters and gets no answer while the fault holds…
    stream.send({
      type_url: CLUSTER_TYPE,
      node: { id: 'sidecar~10.0.0.1~orders-v1-0.default~default.svc.cluster.local' },
    });
    const answer = await stream.next(1_000).then(
      () => 'a CDS response',
      (err: unknown) => String(err),
    );
    if (!answer.includes('timed out after 1000 ms waiting for a response'))
      throw new Error(`expected no answer while the fault holds, got: ${answer}`);
    console.log('withheld: no CDS response within 1 s');
  });
  // … and gets them once the fault is removed.
  const response = await stream.next(10_000);
  console.log(
    `released: CDS version ${response.version_info}, ${response.resources.length} clusters`,
  );
} finally {
  ads.close();
  await container.stop();
}
