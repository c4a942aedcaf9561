// Where the tests find the repository's shared files and the live gateway.

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** sdk/node, whatever the working directory (tests run compiled, from dist/test). */
export const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const repoRoot = resolve(pkgDir, "..", "..");

export const signVectorsPath = process.env.GATEWAY_SDK_SIGN_VECTORS || resolve(repoRoot, "schema/testdata/sign-vectors.json");
export const openapiPath = process.env.GATEWAY_SDK_OPENAPI || resolve(repoRoot, "web/api/apidoc/openapi.json");

export function readJSON<T>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

/** The live gateway make test-sdk started, or undefined when the tests run alone. */
export interface Live {
  baseUrl: string;
  appid: string;
  apiKey: string;
  queryKey: string;
  webhookSecret: string;
}

export function live(): Live | undefined {
  const e = process.env;
  if (!e.GATEWAY_SDK_BASE_URL) return undefined;
  const need = (name: string): string => {
    const v = e[name];
    if (!v) throw new Error(`${name} is not set though GATEWAY_SDK_BASE_URL is`);
    return v;
  };
  return {
    baseUrl: e.GATEWAY_SDK_BASE_URL,
    appid: need("GATEWAY_SDK_APPID"),
    apiKey: need("GATEWAY_SDK_API_KEY"),
    queryKey: need("GATEWAY_SDK_QUERY_KEY"),
    webhookSecret: need("GATEWAY_SDK_WEBHOOK_SECRET"),
  };
}
