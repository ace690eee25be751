/**
 * grpc-js's floor for ADS: a bare `@grpc/grpc-js` server with the mock's service definition
 * (raw bytes in and out) and its server options, and nothing else: the first request of
 * each type is answered with the pre-encoded response, everything else is dropped; a push
 * writes the pre-encoded CDS response (new nonce) to every open stream.
 * Benchmark-only.
 */
import * as grpc from '@grpc/grpc-js';
import { ADS_SERVICE, type AdsCall } from '../../src/server/ads-service.js';
import { announce, answerOnce, floorArgs, floorResponses, FloorStreams } from './floor.js';

const args = floorArgs('floor-grpcjs');
const responses = floorResponses(args.resources);
const streams = new FloorStreams(responses);

function serve(call: AdsCall, delta: boolean): void {
  const answer = answerOnce(delta ? responses.delta : responses.sotw, delta);
  const forget = streams.add(delta, (message) => call.write(message));
  call.on('close', forget);
  call.on('data', (bytes: Buffer) => {
    const response = answer(bytes);
    if (response) call.write(response);
  });
  call.on('end', () => call.end());
  call.on('error', () => undefined);
}

grpc.setLogVerbosity(grpc.logVerbosity.NONE);

/** A server bound to `port` (0: any); a new one for each `up`, as a shut-down one is done. */
async function listen(port: number): Promise<{ server: grpc.Server; port: number }> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    'grpc.enable_channelz': 0,
  });
  server.addService(ADS_SERVICE, {
    StreamAggregatedResources: (call: AdsCall) => serve(call, false),
    DeltaAggregatedResources: (call: AdsCall) => serve(call, true),
  });
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${args.host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { server, port: bound };
}

let serving = await listen(0);
const { port } = serving;
await announce(args.host, port, streams, {
  down: () => {
    serving.server.forceShutdown();
    return Promise.resolve();
  },
  up: async () => {
    serving = await listen(port);
  },
});
