/** Library placeholders of an unlinked artifact: source → library name → byte ranges. */
export type LinkReferences = Readonly<
  Record<string, Readonly<Record<string, readonly { readonly start: number; readonly length: number }[]>>>
>;

/**
 * Replaces library placeholders in `bytecode` with the deployed library addresses.
 * `libraries` maps library names (e.g. `NFTDescriptor`) to addresses.
 * @throws Error when a referenced library has no address.
 */
export function linkBytecode(
  bytecode: `0x${string}`,
  linkReferences: LinkReferences,
  libraries: Record<string, `0x${string}`>,
): `0x${string}` {
  let hex = bytecode.slice(2);
  for (const bySource of Object.values(linkReferences)) {
    for (const [name, refs] of Object.entries(bySource)) {
      const address = libraries[name];
      if (!address) throw new Error(`linkBytecode: no address for library ${name}`);
      const body = address.slice(2).toLowerCase().padStart(40, "0");
      for (const { start, length } of refs) {
        hex = hex.slice(0, start * 2) + body.slice(0, length * 2) + hex.slice((start + length) * 2);
      }
    }
  }
  return `0x${hex}`;
}
