import { afterEach, beforeEach } from "vitest";
import { createKube, type Kube, KubeError } from "../../../operator/src/kube/index.ts";
import { type KubeFake, startKubeFake } from "./index.ts";

/** For the fake's own tests: a fresh fake and a client of it around every test, handed to `use`. */
export function useKubeFake(use: (fake: KubeFake, kube: Kube) => void): void {
  let fake: KubeFake | undefined;
  beforeEach(async () => {
    fake = await startKubeFake();
    use(fake, createKube(fake.kubeConfig()));
  });
  afterEach(async () => {
    await fake?.close();
  });
}

/** The KubeError a call fails with; throws when it succeeds or fails otherwise. */
export async function kubeErrorOf(promise: Promise<unknown>): Promise<KubeError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof KubeError)) throw new Error(`expected a KubeError, got ${String(err)}`);
  return err;
}
