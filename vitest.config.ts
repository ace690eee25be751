import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Seven projects: unit (pure code), integration (the server driven in-process over real gRPC),
// e2e (real Envoy processes), conformance (the same ADS exchanges against istiod's own xDS
// server and the mock), adversarial (a running mock attacked from outside), cluster (the mock
// in a real single-node Kubernetes) and docs (every
// snippet of the docs, run). e2e files run one at a
// time: each starts Envoy, and this project's machines have two cores.
export default defineConfig({
  // The examples import the package by name, as users do; here that name is the source.
  resolve: {
    alias: [
      {
        find: /^mock-istiod$/,
        replacement: fileURLToPath(new URL('src/index.ts', import.meta.url)),
      },
      {
        find: /^mock-istiod\/testing$/,
        replacement: fileURLToPath(new URL('src/testing/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    reporters: [
      'default',
      './test/support/summary-reporter.ts',
      './test/conformance/support/table-reporter.ts',
    ],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 10_000 },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts', 'examples/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
          globalSetup: ['test/e2e/global-setup.ts'],
        },
      },
      {
        // The differential suite (docs/conformance.md): the same scripted ADS exchanges
        // against istiod's own xDS server (istiod-ref, built by scripts/install-istio.sh)
        // and against the mock.
        extends: true,
        test: {
          name: 'conformance',
          include: ['test/conformance/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // A running mock attacked from outside through its real ports, files and headers
        // (docs/RELIABILITY.md, "Attacked from outside"): each file starts its own mock in a
        // process of its own and checks it afterwards. One file at a time: the event-loop
        // delay each measures should be the mock's, not the neighbour's.
        extends: true,
        test: {
          name: 'adversarial',
          include: ['test/adversarial/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 90_000,
          fileParallelism: false,
        },
      },
      {
        // The mock in a real single-node Kubernetes (scripts/cluster.sh, docs/kubernetes.md):
        // one cluster for the project, started by its global setup; files one at a time.
        extends: true,
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 600_000,
          fileParallelism: false,
          globalSetup: ['test/cluster/global-setup.ts'],
        },
      },
      {
        // Every code block of README.md and docs/ run as a user would (docs/docs-tests.md):
        // real mocks and real Envoy, so one file at a time like e2e.
        extends: true,
        test: {
          name: 'docs',
          include: ['test/docs/**/*.test.ts'],
          testTimeout: 90_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          globalSetup: ['test/e2e/global-setup.ts'],
        },
      },
    ],
  },
});
