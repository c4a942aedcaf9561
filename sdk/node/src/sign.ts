// SPEC.md's request and callback signature: MD5 over the parameters sorted
// by name, sign and sign_type left out, null and undefined left out, empty
// strings kept, values as they are (no URL encoding), the API key appended.

import { createHash, timingSafeEqual } from "node:crypto";
import { utf8 } from "./bytes.js";

/** A flat parameter set as sent: numbers are signed as JSON writes them. */
export type Params = Record<string, string | number | boolean | null | undefined>;

/** The string that is hashed, before the key is appended. */
export function signBase(params: Params): string {
  const pairs: string[] = [];
  for (const name of Object.keys(params).sort(byteOrder)) {
    if (name === "sign" || name === "sign_type") continue;
    const v = params[name];
    if (v === null || v === undefined) continue;
    pairs.push(`${name}=${String(v)}`);
  }
  return pairs.join("&");
}

/** sign of params with the API key: 32 lower-case hex characters. */
export function sign(params: Params, apiKey: string): string {
  return createHash("md5").update(signBase(params) + apiKey, "utf8").digest("hex");
}

/** Whether got is params' sign with apiKey, compared in constant time. */
export function verifySign(params: Params, apiKey: string, got: string): boolean {
  const want = utf8(sign(params, apiKey));
  const have = utf8(got);
  return have.length === want.length && timingSafeEqual(have, want);
}

// Names sort by their bytes (upper case before lower), which for the ASCII
// names the gateway accepts is UTF-16 code unit order too.
function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
