#!/usr/bin/env node
// Mailroom runs its TypeScript sources directly on Node 24 (type stripping). Refuse older Nodes clearly.
const major = Number(process.versions.node.split(".")[0]);
if (major < 24) {
  process.stderr.write(
    `mailroom needs Node.js 24 or newer (this is ${process.version}).\n` +
      "Run it through npm so the project's pinned Node is used: `npm exec --no -- mailroom ...` or `make run`.\n",
  );
  process.exit(1);
}
await import("../src/main.ts");
