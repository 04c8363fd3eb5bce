import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { deeplyNested } from "../../../test/support/hostile.ts";
import { MAX_BODY_DEPTH } from "../schemas.ts";
import { registerErrorHandling } from "./errors.ts";
import { registerJsonBody } from "./json-body.ts";

describe("JSON body parser", () => {
  const app = Fastify();
  registerErrorHandling(app);
  registerJsonBody(app);
  app.post("/", async (request) => ({ got: request.body }));
  afterAll(() => app.close());

  const post = (payload: string) =>
    app.inject({ method: "POST", url: "/", headers: { "content-type": "application/json" }, payload });

  for (const kind of ["object", "array"] as const) {
    it(`takes ${kind}s nested exactly ${MAX_BODY_DEPTH} levels deep and refuses one level more`, async () => {
      const deepest = await post(deeplyNested(MAX_BODY_DEPTH, kind));
      expect(deepest.statusCode).toBe(200);
      expect(deepest.json().got).toEqual(JSON.parse(deeplyNested(MAX_BODY_DEPTH, kind)));
      const deeper = await post(deeplyNested(MAX_BODY_DEPTH + 1, kind));
      expect(deeper.statusCode).toBe(400);
      expect(deeper.json()).toEqual({
        error: "validation_error",
        message: `body: nests more than ${MAX_BODY_DEPTH} levels deep`,
      });
    });
  }

  it("finds the deep branch among wide, shallow ones", async () => {
    const wide = Array.from({ length: 100 }, (_, i) => ({ n: i, tags: [{ name: "a", value: "b" }] }));
    const body = JSON.stringify({ wide, last: JSON.parse(deeplyNested(MAX_BODY_DEPTH)) });
    expect((await post(body)).statusCode).toBe(400);
    expect((await post(JSON.stringify({ wide }))).statusCode).toBe(200);
  });
});
