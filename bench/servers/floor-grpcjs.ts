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
const server = new grpc.Server({
  'grpc.max_receive_message_length': 4 * 1024 * 1024,
  'grpc.enable_channelz': 0,
});
server.addService(ADS_SERVICE, {
  StreamAggregatedResources: (call: AdsCall) => serve(call, false),
  DeltaAggregatedResources: (call: AdsCall) => serve(call, true),
});
const port = await new Promise<number>((resolve, reject) =>
  server.bindAsync(`${args.host}:0`, grpc.ServerCredentials.createInsecure(), (err, bound) =>
    err ? reject(err) : resolve(bound),
  ),
);
await announce(args.host, port, streams);
