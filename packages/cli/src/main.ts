#!/usr/bin/env node
// Placeholder until the CLI lands (issue: CLI).
console.log('havn: the telemetry CLI (havn otel errors|traces|logs|spans) is coming.');
