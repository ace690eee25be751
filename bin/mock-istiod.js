#!/usr/bin/env node
// Entry point of the published package: runs the compiled CLI.
import '../dist/src/cli/main.js';
