/**
 * The thread reloads load their resource files on (file-thread.ts): for each path it is
 * sent, it reads, parses and validates the files and posts back the validated sets or the
 * problems, one load after another.
 */
import { parentPort } from 'node:worker_threads';
import { loadAndValidate } from './file-source.js';
import type { LoadAnswer, LoadRequest } from './file-thread.js';

parentPort?.on('message', ({ id, path }: LoadRequest) => {
  let result: LoadAnswer['result'];
  try {
    result = loadAndValidate(path);
  } catch (err) {
    result = { ok: false, problems: [{ path, message: `cannot be loaded: ${String(err)}` }] };
  }
  parentPort?.postMessage({ id, result } satisfies LoadAnswer);
});
