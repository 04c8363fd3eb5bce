import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{core,api,worker,operator,smtp,console,cli}/src/**/*.test.ts", "test/**/*.test.ts"],
    // The fault, upgrade, real-control-plane suites and the release's registry test have their own configs and
    // targets (`make test-faults`, `make test-upgrade`, `make test-kubernetes`, `make release-test`).
    exclude: [
      ...configDefaults.exclude,
      "test/fault/**",
      "test/kubernetes/**",
      "test/upgrade/**/*.upgrade.test.ts",
      "test/release/*.int.test.ts",
    ],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Real servers per file (Postgres databases, SMTP sinks, TLS listeners): keep the 2-core box unloaded.
    maxWorkers: 2,
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
