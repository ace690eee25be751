/**
 * The thread a reload loads its resource files on (file-thread.ts starts one for each): it
 * reads, parses and validates them, and posts back the validated sets or the problems.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadAndValidate } from './file-source.js';

parentPort?.postMessage(loadAndValidate((workerData as { path: string }).path));
