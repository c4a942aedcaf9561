// @types/node 20.9's Buffer predates TypeScript 5.7's generic typed arrays,
// so a Buffer does not type-check where node:crypto wants a Uint8Array: view
// the same bytes as a plain Uint8Array (no copy).
export function u8(b: Buffer | Uint8Array): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** The UTF-8 bytes of s. */
export function utf8(s: string): Uint8Array {
  return u8(Buffer.from(s, "utf8"));
}
