import { defineConfig } from "vitest/config";

// `make test-kubernetes`: the operator contract suite (the same files `make test` runs on the fake) and the
// chart, against a real kube-apiserver, etcd and kube-controller-manager built from their Go modules. Files run
// one at a time: they share one cluster, and operators watching every namespace would reconcile each other's CRs.
export default defineConfig({
  test: {
    root: `${import.meta.dirname}/../..`,
    include: ["operator/src/contract/*.int.test.ts", "test/kubernetes/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts", "test/kubernetes/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 600_000,
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
