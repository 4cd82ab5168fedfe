/** The limit: raw node:http sending the same bytes from memory (plain, and gzip pre-compressed). */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { gzipSync } from 'node:zlib';

const [file, port] = [process.argv[2]!, Number(process.argv[3])];
const plain = readFileSync(file);
const gz = gzipSync(plain);
const type = 'text/plain; version=0.0.4; charset=utf-8';
http
  .createServer((req, res) => {
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    const body = gzip ? gz : plain;
    res.writeHead(200, gzip ? { 'content-type': type, 'content-encoding': 'gzip', 'content-length': body.length } : { 'content-type': type, 'content-length': body.length });
    res.end(body);
  })
  .listen(port, '127.0.0.1', () => console.log('ready'));
