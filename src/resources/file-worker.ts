/**
 * The thread reloads load their resource files on (file-thread.ts), and large resources
 * given to the control API or the library are validated on: for each piece of work it is
 * sent, it reads, parses and validates, and posts back the validated sets or the problems,
 * one after another.
 */
import { parentPort } from 'node:worker_threads';
import { validateSet, validateSets } from '../snapshot/validated-set.js';
import type { Result } from '../util/problems.js';
import { loadAndValidate } from './file-source.js';
import { problemPath, type LoadAnswer, type LoadRequest } from './file-thread.js';

function work(request: LoadRequest): Result<unknown> {
  switch (request.kind) {
    case 'files':
      return loadAndValidate(request.path);
    case 'set':
      return validateSet(request.spec);
    case 'sets':
      return validateSets(request.specs);
  }
}

parentPort?.on('message', (request: LoadRequest) => {
  let result: Result<unknown>;
  try {
    result = work(request);
  } catch (err) {
    const message = `cannot be validated: ${String(err)}`;
    result = { ok: false, problems: [{ path: problemPath(request), message }] };
  }
  parentPort?.postMessage({ id: request.id, result } satisfies LoadAnswer);
});
