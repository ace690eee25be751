import { expect, it } from 'vitest';
import { ChangeQueue } from '../../src/control/control-server.js';

it('runs changes one at a time, in order, numbering each (a failed one too)', async () => {
  const queue = new ChangeQueue();
  const log: string[] = [];
  let releaseSlow: () => void = () => undefined;
  const slow = queue.run(async () => {
    log.push('slow starts');
    await new Promise<void>((resolve) => (releaseSlow = resolve));
    log.push('slow ends');
    return 'slow';
  });
  const failing = queue.run(() => Promise.reject(new Error('refused')));
  const fast = queue.run(() => {
    log.push('fast runs');
    return Promise.resolve('fast');
  });
  await new Promise((resolve) => setImmediate(resolve));
  expect(log).toEqual(['slow starts']);
  releaseSlow();
  expect(await slow).toEqual({ value: 'slow', revision: 1 });
  await expect(failing).rejects.toThrow('refused');
  expect(await fast).toEqual({ value: 'fast', revision: 3 });
  expect(log).toEqual(['slow starts', 'slow ends', 'fast runs']);
  expect(queue.revision).toBe(3);
});
