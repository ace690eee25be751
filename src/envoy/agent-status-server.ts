/**
 * pilot-agent's status server (15020), reduced to the endpoint a sidecar's readiness depends
 * on: `GET /healthz/ready` runs the readiness probe and answers **200 or 503 with an empty
 * body**, as pilot-agent does; the reason is only logged (`Envoy proxy is NOT ready: <reason>`,
 * at warn, on every failure; `Envoy proxy is ready`, at info, when it turns ready). Envoy's
 * readiness listener (15021) forwards the kubelet's probe here.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { READINESS_PATH } from '../bootstrap/probe-listeners.js';
import type { ReadinessProbe, ReadinessResult } from './readiness-probe.js';

export interface StatusServer {
  readonly port: number;
  /** The result of the last `/healthz/ready` served, if any. */
  readonly last: ReadinessResult | undefined;
  close(): Promise<void>;
}

export interface StatusServerOptions {
  host: string;
  /** 0 lets the OS choose. */
  port: number;
  probe: ReadinessProbe;
  log: Logger;
  /** Called after every probe served. */
  onProbe?: (result: ReadinessResult) => void;
}

export async function startStatusServer(options: StatusServerOptions): Promise<StatusServer> {
  const { probe, log } = options;
  let last: ReadinessResult | undefined;
  let lastSuccessful = false;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== READINESS_PATH) {
      res.writeHead(404).end();
      return;
    }
    const checked = probe
      .check()
      .catch((err: unknown): ReadinessResult => ({ ready: false, reason: String(err) }));
    void checked.then((result) => {
      last = result;
      if (!result.ready) {
        log.warn({ reason: result.reason }, `Envoy proxy is NOT ready: ${result.reason}`);
      } else if (!lastSuccessful) {
        log.info('Envoy proxy is ready');
      }
      lastSuccessful = result.ready;
      res.writeHead(result.ready ? 200 : 503, { 'content-length': '0' }).end();
      options.onProbe?.(result);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    port,
    get last() {
      return last;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
