import { defineConfig } from "vitest/config";

// `make release-test`: the release built by scripts/release/test.sh (dist/release-test/), pushed to a real
// registry on loopback, verified there, and installed from it onto the real kube-apiserver of test/kubernetes.
export default defineConfig({
  test: {
    root: `${import.meta.dirname}/../..`,
    include: ["test/release/**/*.int.test.ts"],
    globalSetup: ["test/support/global-setup.ts", "test/kubernetes/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 600_000,
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
