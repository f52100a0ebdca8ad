#!/usr/bin/env node
// Runs on the Node 24 that `npm install` puts in node_modules/.bin (npx and npm scripts put it first
// on PATH); the CLI itself is TypeScript run through Node's type stripping.
import "../src/cli/main.ts";
