/** Where a server listens: a host (name or IP address) and a port (0: any free port). */
export interface Endpoint {
  host: string;
  port: number;
}

/** `host:port`, with an IPv6 address in brackets (`[::1]:15012`). */
export function formatEndpoint({ host, port }: Endpoint): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}
