/** Throwaway certificates for TLS tests, made with the openssl command line. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Certs {
  dir: string;
  path: (name: string) => string;
  read: (name: string) => Buffer;
}

function ssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A CA, a server certificate for 127.0.0.1, a good client, an expired client, and a client of another CA. */
export function makeCerts(): Certs {
  const dir = mkdtempSync(join(tmpdir(), 'dne-certs-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  for (const ca of ['ca', 'other-ca']) ssl(dir, ['req', '-x509', ...ec, '-keyout', `${ca}.key`, '-out', `${ca}.crt`, '-subj', `/CN=${ca}`, '-days', '2']);
  writeFileSync(join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  ssl(dir, ['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  ssl(dir, [
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '2',
    '-extfile',
    'san.cnf',
  ]);
  ssl(dir, ['req', ...ec, '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=prometheus']);
  ssl(dir, ['x509', '-req', '-in', 'client.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.crt', '-days', '2']);
  ssl(dir, ['x509', '-req', '-in', 'client.csr', '-CA', 'other-ca.crt', '-CAkey', 'other-ca.key', '-CAcreateserial', '-out', 'client-other.crt', '-days', '2']);
  // Expired: openssl 3.0's x509 cannot back-date, its ca command can.
  mkdirSync(join(dir, 'db'));
  writeFileSync(join(dir, 'db/index.txt'), '');
  writeFileSync(join(dir, 'db/serial'), '1000\n');
  writeFileSync(
    join(dir, 'ca.cnf'),
    '[ca]\ndefault_ca=d\n[d]\ndir=.\ndatabase=./db/index.txt\nserial=./db/serial\nnew_certs_dir=./db\ndefault_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n',
  );
  ssl(dir, [
    'ca',
    '-batch',
    '-config',
    'ca.cnf',
    '-cert',
    'ca.crt',
    '-keyfile',
    'ca.key',
    '-in',
    'client.csr',
    '-out',
    'client-expired.crt',
    '-startdate',
    '20200101000000Z',
    '-enddate',
    '20200102000000Z',
    '-notext',
  ]);
  return { dir, path: (n) => join(dir, n), read: (n) => readFileSync(join(dir, n)) };
}
