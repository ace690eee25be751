/**
 * Prepares Envoy's API types for a fast start (src/xds/prepared-types.ts): parses the .proto
 * files the mock loads and writes the resolved root as JSON to dist/descriptors/. Part of
 * `npm run build` (so it ships with the package and the image) and of `npm test`'s pretest.
 *
 *   npx tsx scripts/prepare-types.ts             # writes it
 *   npx tsx scripts/prepare-types.ts --if-stale  # writes it only when missing or stale
 */
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { ENVOY_PROTO_FILES, loadRoot } from '../src/xds/protos.js';
import {
  preparedTypesFresh,
  preparedTypesPath,
  writePreparedTypes,
} from '../src/xds/prepared-types.js';
import { packageRoot } from '../src/util/package-root.js';

const { values } = parseArgs({ options: { 'if-stale': { type: 'boolean', default: false } } });
const path = preparedTypesPath();
if (!values['if-stale'] || !preparedTypesFresh(ENVOY_PROTO_FILES, path)) {
  writePreparedTypes(loadRoot(ENVOY_PROTO_FILES), ENVOY_PROTO_FILES, path);
  process.stdout.write(`prepared Envoy's API types: ${relative(packageRoot(), path)}\n`);
}
