/**
 * node:http and node:https loaded with require(), not import. From Node 22 on, an ESM import of
 * node:http builds its namespace from every export, and one of those getters loads Node's own
 * bundled undici with crypto, TLS and HTTP/2: resident memory this exporter never uses
 * (docs/performance.md, "Choices"). A require() returns the module object without touching them.
 */
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

export const http = load('node:http') as typeof import('node:http');
export const https = load('node:https') as typeof import('node:https');
