#!/usr/bin/env node
// The simulator runs from its TypeScript source, through tsx's register API.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
await main();
