// Every signature vector of the repository (computed outside our code)
// signs and verifies exactly.

import assert from "node:assert/strict";
import { test } from "node:test";
import { sign, signBase, verifySign, type Params } from "../src/index.js";
import { readJSON, signVectorsPath } from "./env.js";

interface Vector {
  name: string;
  params: Params;
  key: string;
  base: string;
  sign: string;
}

const vectors = readJSON<{ vectors: Vector[] }>(signVectorsPath).vectors;

test("the vectors file is read", () => {
  assert.ok(vectors.length >= 9, `only ${vectors.length} vectors in ${signVectorsPath}`);
});

for (const v of vectors) {
  test(`sign vector: ${v.name}`, () => {
    assert.equal(signBase(v.params), v.base);
    assert.equal(sign(v.params, v.key), v.sign);
    assert.ok(verifySign(v.params, v.key, v.sign));
  });
}

test("verifySign refuses a changed value, another key, a changed sign and a short sign", () => {
  const v = vectors[0]!;
  const cases: [string, () => boolean][] = [
    ["changed amount", () => verifySign({ ...v.params, amount: "101" }, v.key, v.sign)],
    ["added parameter", () => verifySign({ ...v.params, extra: "" }, v.key, v.sign)],
    ["other key", () => verifySign(v.params, v.key + "x", v.sign)],
    ["flipped sign", () => verifySign(v.params, v.key, v.sign.replace(/^./, (c) => (c === "0" ? "1" : "0")))],
    ["short sign", () => verifySign(v.params, v.key, v.sign.slice(0, 31))],
    ["empty sign", () => verifySign(v.params, v.key, "")],
  ];
  for (const [name, check] of cases) assert.equal(check(), false, name);
});

test("a JSON number is signed as JSON writes it", () => {
  assert.equal(signBase({ amount: 100, b: 12.5, c: true }), "amount=100&b=12.5&c=true");
});
