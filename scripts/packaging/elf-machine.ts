/**
 * The e_machine field of an ELF file: which CPU a `.node` binary was built for. A binary for the
 * wrong CPU only fails when Lambda loads it, so packaging and tests check it up front.
 */
export function elfMachine(bytes: Uint8Array): number {
  const isElf = bytes.length >= 20 && bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46;
  if (!isElf) throw new Error('not an ELF file');
  const littleEndian = bytes[5] === 1;
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint16(18, littleEndian);
}
