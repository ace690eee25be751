import { describe, expect, it, onTestFinished } from 'vitest';
import {
  parseLabUpstreamArgs,
  startLabUpstream,
  type LabUpstreamOptions,
} from '../../scripts/lab-upstream.js';

async function start(options: LabUpstreamOptions) {
  const upstream = await startLabUpstream(options);
  onTestFinished(() => upstream.close());
  return upstream;
}

async function get(url: string) {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  return { status: response.status, body: await response.text() };
}

describe('lab upstream', () => {
  it('ok: 200 with <mode>:<port> <path>', async () => {
    const upstream = await start({ mode: 'ok', port: 0 });
    expect(upstream.port).toBeGreaterThan(0);
    expect(upstream.url).toBe(`http://127.0.0.1:${upstream.port}`);
    expect(await get(`${upstream.url}/orders`)).toEqual({
      status: 200,
      body: `ok:${upstream.port} /orders`,
    });
    expect((await get(`${upstream.url}/a/b?x=1`)).body).toBe(`ok:${upstream.port} /a/b?x=1`);
  });

  it('fail: 500 with the same body shape', async () => {
    const upstream = await start({ mode: 'fail', port: 0 });
    expect(await get(`${upstream.url}/orders`)).toEqual({
      status: 500,
      body: `fail:${upstream.port} /orders`,
    });
  });

  it('slow: 200, but only after slowMs', async () => {
    const upstream = await start({ mode: 'slow', port: 0, slowMs: 300 });
    const started = performance.now();
    const answer = await get(`${upstream.url}/orders`);
    const elapsed = performance.now() - started;
    expect(answer).toEqual({ status: 200, body: `slow:${upstream.port} /orders` });
    expect(elapsed).toBeGreaterThanOrEqual(290);
  });

  it('close() stops listening, drops a pending slow answer and is idempotent', async () => {
    const upstream = await startLabUpstream({ mode: 'slow', port: 0, slowMs: 60_000 });
    const pending = get(`${upstream.url}/never`).then(
      () => 'answered',
      () => 'dropped',
    );
    // close() must not wait the 60 s for the pending answer.
    await upstream.close();
    expect(await pending).toBe('dropped');
    await upstream.close();
    await expect(get(`${upstream.url}/`)).rejects.toThrow();
  });

  it('rejects a bad mode or port', async () => {
    await expect(startLabUpstream({ mode: 'odd' as 'ok' })).rejects.toThrow('mode must be one of');
    await expect(startLabUpstream({ mode: 'ok', port: 70_000 })).rejects.toThrow('port must be');
  });

  it('parses flags and the lab positional form', () => {
    expect(parseLabUpstreamArgs(['--mode', 'fail', '--port', '8101'])).toEqual({
      mode: 'fail',
      port: 8101,
      host: '127.0.0.1',
      slowMs: 2000,
    });
    expect(parseLabUpstreamArgs(['8102', 'slow', '--slow-ms', '10'])).toMatchObject({
      mode: 'slow',
      port: 8102,
      slowMs: 10,
    });
    expect(() => parseLabUpstreamArgs(['--port', 'x'])).toThrow('--port must be');
  });
});
