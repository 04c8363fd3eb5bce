import { describe, expect, it } from "vitest";
import { createBatcher, ItemFailure, isolatingItemErrors } from "./batcher.ts";

/** A runner whose batches the test finishes by hand, recording what each batch carried. */
function manualRunner() {
  const batches: { items: number[]; finish: () => void; fail: (error: Error) => void }[] = [];
  const run = (items: number[]) =>
    new Promise<Array<number | ItemFailure>>((resolve, reject) => {
      batches.push({
        items,
        finish: () => resolve(items.map((n) => (n < 0 ? new ItemFailure(new Error(`bad ${n}`)) : n * 10))),
        fail: reject,
      });
    });
  return { batches, run };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("createBatcher", () => {
  it("runs an item alone at once, gathers the items that arrive while every slot is busy", async () => {
    const { batches, run } = manualRunner();
    const call = createBatcher(run, { concurrency: 1, maxBatch: 3 });
    const first = call(1);
    const rest = [2, 3, 4, 5].map((n) => call(n));
    await tick();
    expect(batches.map((b) => b.items)).toEqual([[1]]);
    batches[0]?.finish();
    expect(await first).toBe(10);
    await tick();
    expect(batches.map((b) => b.items)).toEqual([[1], [2, 3, 4]]);
    batches[1]?.finish();
    await tick();
    batches[2]?.finish();
    expect(await Promise.all(rest)).toEqual([20, 30, 40, 50]);
    expect(batches.map((b) => b.items)).toEqual([[1], [2, 3, 4], [5]]);
  });

  it("fails one caller for an ItemFailure and every caller of a batch that throws", async () => {
    const { batches, run } = manualRunner();
    const call = createBatcher(run, { concurrency: 1, maxBatch: 10 });
    const blocker = call(0);
    const [good, bad] = [call(7), call(-1)];
    batches[0]?.finish();
    await blocker;
    await tick();
    batches[1]?.finish();
    expect(await good).toBe(70);
    await expect(bad).rejects.toThrow("bad -1");
    const blocker2 = call(0);
    const [x, y] = [call(1), call(2)];
    batches[2]?.finish();
    await blocker2;
    await tick();
    expect(batches[3]?.items).toEqual([1, 2]);
    batches[3]?.fail(new Error("database gone"));
    await expect(x).rejects.toThrow("database gone");
    await expect(y).rejects.toThrow("database gone");
  });

  it("sends items that waited maxWaitMs for a slot as an extra batch, so a stall costs one wait", async () => {
    const { batches, run } = manualRunner();
    const call = createBatcher(run, { concurrency: 1, maxBatch: 10, maxWaitMs: 50 });
    void call(1); // hangs: never finished
    const late = call(2);
    await tick();
    expect(batches).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(batches.map((b) => b.items)).toEqual([[1], [2]]);
    batches[1]?.finish();
    expect(await late).toBe(20);
  });

  it("runs the items of a batch alone when one item's data failed it, and only then", async () => {
    const calls: number[][] = [];
    const run = isolatingItemErrors(async (items: number[]) => {
      calls.push(items);
      if (items.includes(-1)) throw Object.assign(new Error("invalid input syntax"), { code: "22P02" });
      if (items.includes(-2)) throw Object.assign(new Error("connection lost"), { code: "08006" });
      return items.map((n) => n * 10);
    });
    const results = await run([1, -1, 2]);
    expect(results.slice(0, 1)).toEqual([10]);
    expect(results[1]).toBeInstanceOf(ItemFailure);
    expect(results[2]).toBe(20);
    expect(calls).toEqual([[1, -1, 2], [1], [-1], [2]]);
    await expect(run([1, -2])).rejects.toThrow("connection lost");
  });
});
