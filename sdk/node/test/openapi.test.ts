// The SDK's declared types against the OpenAPI document the binary serves:
// the same fields, the same required ones, the same error kinds and event
// types. A change on either side without the other fails here.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { errorKinds, eventTypes } from "../src/index.js";
import { openapiPath, readJSON } from "./env.js";
import { envelopeShape, filterShape, requestShapes, shapes, type Shape } from "./shapes.js";

interface Schema {
  type?: string | string[];
  required?: string[];
  properties?: Record<string, unknown>;
  enum?: unknown[];
  additionalProperties?: boolean;
}

interface Doc {
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, { parameters?: ({ name: string; in: string } | { $ref: string })[] }>>;
  webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: Schema }> } } }>;
}

const doc = readJSON<Doc>(openapiPath);
const schemas = doc.components.schemas;

function schema(name: string): Schema {
  const s = schemas[name];
  assert.ok(s, `no schema ${name} in ${openapiPath}`);
  return s;
}

const sorted = (xs: Iterable<string>) => [...xs].sort();

describe("response and callback types match the document", () => {
  for (const [name, s] of Object.entries(shapes) as [string, Shape][]) {
    test(name, () => {
      const sc = schema(name);
      assert.equal(sc.additionalProperties, false, `${name} is closed in the document, so the SDK can know every field`);
      assert.deepEqual(sorted(s.required), sorted(sc.required ?? []), `${name}: required fields`);
      assert.deepEqual(sorted([...s.required, ...s.optional]), sorted(Object.keys(sc.properties ?? {})), `${name}: fields`);
    });
  }
});

// What the client adds to every signed request itself.
const added = new Set(["appid", "action", "sign", "sign_type"]);

describe("request types match the document", () => {
  for (const [name, s] of Object.entries(requestShapes) as [string, Shape][]) {
    test(name, () => {
      const sc = schema(name);
      const props = Object.keys(sc.properties ?? {}).filter((k) => !added.has(k));
      const required = (sc.required ?? []).filter((k) => !added.has(k));
      // clientip is required by a create but may come from the client's option.
      assert.deepEqual(sorted(s.required), sorted(required.filter((k) => k !== "clientip")), `${name}: required fields`);
      const declared = [...s.required, ...s.optional];
      // The refund's optional clientip is left out on purpose: when sent it must equal the request's IP.
      const expected = name === "RefundRequest" ? props.filter((k) => k !== "clientip") : props;
      assert.deepEqual(sorted(declared), sorted(expected), `${name}: fields`);
    });
  }
  test("CancelRequest takes nothing but the paymentId from the caller", () => {
    const props = Object.keys(schema("CancelRequest").properties ?? {}).filter((k) => !added.has(k) && k !== "clientip");
    assert.deepEqual(props, ["paymentId"]);
  });
  test("OrderFilter's fields are queryOrders' parameters", () => {
    const op = doc.paths["/api/order"]?.get;
    assert.ok(op);
    const names = new Set((op.parameters ?? []).flatMap((p) => ("name" in p ? [p.name] : [])));
    for (const f of [...filterShape.required, ...filterShape.optional]) assert.ok(names.has(f), `queryOrders has no parameter ${f}`);
  });
});

describe("enumerations match the document", () => {
  test("error kinds", () => {
    assert.deepEqual(sorted(errorKinds), sorted((schema("ErrorKind").enum ?? []) as string[]));
  });
  test("order statuses", () => {
    assert.deepEqual(schema("Status").enum, [0, 1, 2, 3, 4]);
    assert.deepEqual(schema("StatusName").enum, ["pending", "ready", "paid", "failed", "cancelled"]);
  });
  test("refund statuses", () => {
    assert.deepEqual(sorted((schema("RefundStatus").enum ?? []) as string[]), ["failed", "pending", "succeeded"]);
  });
  test("event types are the document's endpoint events", () => {
    const events = Object.keys(doc.webhooks).filter((k) => k.includes("."));
    assert.deepEqual(sorted(eventTypes), sorted(events));
  });
  test("every event comes in the envelope the SDK declares", () => {
    for (const type of eventTypes) {
      const body = doc.webhooks[type]?.post.requestBody.content["application/json"]?.schema;
      assert.ok(body, `no JSON body for ${type}`);
      assert.deepEqual(sorted(body.required ?? []), sorted(envelopeShape.required), type);
    }
  });
});
