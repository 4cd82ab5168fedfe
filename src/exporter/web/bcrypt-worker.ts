/** The bcrypt worker thread (bcrypt-pool.ts): bcryptjs's synchronous compare, one message at a time, off the serving thread. */
import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';

export interface CompareRequest {
  id: number;
  pass: string;
  hash: string;
}

export interface CompareReply {
  id: number;
  ok: boolean;
}

parentPort?.on('message', (m: CompareRequest) => {
  let ok = false;
  try {
    ok = bcrypt.compareSync(m.pass, m.hash);
  } catch {
    // A malformed hash is a failed comparison.
  }
  parentPort!.postMessage({ id: m.id, ok } satisfies CompareReply);
});
