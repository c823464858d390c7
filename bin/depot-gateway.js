#!/usr/bin/env node
// Entry point of the depot-gateway command. Sources run through tsx, so there is
// no build step between a checkout and a running gateway.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
