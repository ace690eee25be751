/**
 * A stand-in for the application behind the sidecar: answers every request with
 * `hello from <name>`. Examples start one on a free port.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface App {
  port: number;
  close(): Promise<void>;
}

export async function startApp(name: string): Promise<App> {
  const server = createServer((_req, res) => res.end(`hello from ${name}`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** GET on a fresh connection: `{ status, body }`, or `{ error }` when it cannot connect. */
export async function get(
  url: string,
): Promise<{ status: number; body: string } | { error: string }> {
  try {
    const res = await fetch(url, {
      headers: { connection: 'close' },
      signal: AbortSignal.timeout(5_000),
    });
    return { status: res.status, body: await res.text() };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return { error: cause?.code ?? String(err) };
  }
}
