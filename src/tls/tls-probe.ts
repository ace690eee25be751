/**
 * Whether a server answers TLS under a given root: one handshake, then the connection is
 * closed. Asked before handing an address to a client that would otherwise retry a plaintext
 * (or differently rooted) server forever, logging handshake errors (pilot-agent does).
 */
import * as tls from 'node:tls';

export interface TlsProbe {
  host: string;
  port: number;
  /** The root certificate (PEM) the server's chain must lead to. */
  ca: string;
  /** The name sent as SNI; it is not checked against the certificate. */
  servername: string;
  /** ALPN protocols offered, e.g. `['h2']` for gRPC. */
  alpn?: string[];
  timeoutMs: number;
}

/** Done: the handshake completed; else why not (`ECONNREFUSED`, `no answer in 3 s`, …). */
export type TlsProbeResult = { ok: true } | { ok: false; reason: string };

export function probeTls(probe: TlsProbe): Promise<TlsProbeResult> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: probe.host,
      port: probe.port,
      ca: probe.ca,
      ...(probe.alpn ? { ALPNProtocols: probe.alpn } : {}),
      servername: probe.servername,
      // The question is whether the server speaks TLS under this root, not which name it has.
      checkServerIdentity: () => undefined,
      timeout: probe.timeoutMs,
    });
    const refuse = (reason: string) => {
      socket.destroy();
      resolve({ ok: false, reason });
    };
    socket.once('secureConnect', () => {
      socket.end();
      resolve({ ok: true });
    });
    socket.once('timeout', () => refuse(`no answer in ${probe.timeoutMs / 1000} s`));
    socket.once('error', (err: NodeJS.ErrnoException) => refuse(err.code ?? err.message));
  });
}
