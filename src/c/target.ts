/**
 * The target model: widths and implementation-defined choices of the platform whose
 * behaviour the reference interpreter reproduces. It is data, so another model (ILP32,
 * unsigned plain char) is a new constant, not new code.
 */
export interface TargetModel {
  /** Short name used on the command line and in reports, e.g. `x86_64`, `m68k`. */
  readonly name: string;
  /** The Debian/GNU triplet of the platform's cross tool chain, e.g. `m68k-linux-gnu`. */
  readonly triplet: string;
  /** The `qemu-<arch>` user-mode emulator that runs the platform's Linux binaries. */
  readonly qemu: string;
  readonly charBits: number;
  readonly shortBits: number;
  readonly intBits: number;
  readonly longBits: number;
  readonly longLongBits: number;
  readonly pointerBits: number;
  /** Whether plain `char` is signed (true on x86-64 Linux, false on Arm, PowerPC, RISC-V, s390x). */
  readonly charSigned: boolean;
  /**
   * Byte order. Kiln's programs never reinterpret an object's bytes, so no value depends on it (see ARCHITECTURE.md).
   */
  readonly endian: 'little' | 'big';
  /** `_Alignof` of each scalar type in bytes, as the ABI fixes it (m68k aligns everything to 2). */
  readonly align: {
    readonly short: number;
    readonly int: number;
    readonly long: number;
    readonly longLong: number;
    readonly pointer: number;
    readonly double: number;
  };
  /**
   * Which classic type each `<stdint.h>` exact-width type names. On x86-64 glibc
   * `int64_t` is `long`, so `int64_t + long long` has type `long long` (higher rank); on every
   * ILP32 glibc target it is `long long`.
   */
  readonly stdint: {
    readonly 8: 'signed char';
    readonly 16: 'short';
    readonly 32: 'int';
    readonly 64: 'long' | 'long long';
  };
}

type ModelSpec = Pick<TargetModel, 'name' | 'triplet' | 'qemu' | 'charSigned' | 'endian'> & {
  readonly lp64: boolean;
  readonly align?: Partial<TargetModel['align']>;
};

/**
 * Builds a Linux model: every target Kiln models has 8/16/32/64-bit char/short/int/long long and differs in long,
 * pointers, char sign, byte order and alignment.
 */
function linux(spec: ModelSpec): TargetModel {
  const word = spec.lp64 ? 8 : 4;
  return Object.freeze({
    name: spec.name,
    triplet: spec.triplet,
    qemu: spec.qemu,
    charBits: 8,
    shortBits: 16,
    intBits: 32,
    longBits: spec.lp64 ? 64 : 32,
    longLongBits: 64,
    pointerBits: spec.lp64 ? 64 : 32,
    charSigned: spec.charSigned,
    endian: spec.endian,
    align: Object.freeze({ short: 2, int: 4, long: word, longLong: 8, pointer: word, double: 8, ...spec.align }),
    stdint: Object.freeze({ 8: 'signed char', 16: 'short', 32: 'int', 64: spec.lp64 ? 'long' : 'long long' } as const),
  });
}

/** x86-64 Linux (System V ABI, glibc): GCC's and Clang's default target on this platform. */
export const LP64: TargetModel = linux({
  name: 'x86_64',
  triplet: 'x86_64-linux-gnu',
  qemu: 'qemu-x86_64',
  lp64: true,
  charSigned: true,
  endian: 'little',
});

/**
 * Every target model, by name. Sizes, alignments and char signedness follow each psABI as GCC 12
 * (GCC 16 for powerpc64le and loongarch64, which Debian 12 has no cross compiler for) implements
 * it on Debian (checked by printing `sizeof`, `_Alignof` and `CHAR_MIN` with the cross
 * compiler under qemu, and `_Generic` for the type `int64_t` names). `test/cross/models.test.ts`
 * repeats that check on every test run for x86-64, m68k, powerpc and s390x, whose compilers the
 * test profile installs.
 */
export const TARGETS: readonly TargetModel[] = Object.freeze([
  LP64,
  // i386 System V: 64-bit scalars are 4-aligned inside structs, which is what _Alignof reports since GCC 8.
  linux({
    name: 'i686',
    triplet: 'i686-linux-gnu',
    qemu: 'qemu-i386',
    lp64: false,
    charSigned: true,
    endian: 'little',
    align: { longLong: 4, double: 4 },
  }),
  // The m68k SysV ABI aligns every scalar wider than a byte to 2.
  linux({
    name: 'm68k',
    triplet: 'm68k-linux-gnu',
    qemu: 'qemu-m68k',
    lp64: false,
    charSigned: true,
    endian: 'big',
    align: { int: 2, long: 2, longLong: 2, pointer: 2, double: 2 },
  }),
  linux({
    name: 'powerpc',
    triplet: 'powerpc-linux-gnu',
    qemu: 'qemu-ppc',
    lp64: false,
    charSigned: false,
    endian: 'big',
  }),
  linux({
    name: 'aarch64',
    triplet: 'aarch64-linux-gnu',
    qemu: 'qemu-aarch64',
    lp64: true,
    charSigned: false,
    endian: 'little',
  }),
  linux({
    name: 'riscv64',
    triplet: 'riscv64-linux-gnu',
    qemu: 'qemu-riscv64',
    lp64: true,
    charSigned: false,
    endian: 'little',
  }),
  linux({
    name: 'arm',
    triplet: 'arm-linux-gnueabihf',
    qemu: 'qemu-arm',
    lp64: false,
    charSigned: false,
    endian: 'little',
  }),
  linux({
    name: 's390x',
    triplet: 's390x-linux-gnu',
    qemu: 'qemu-s390x',
    lp64: true,
    charSigned: false,
    endian: 'big',
  }),
  linux({ name: 'mips', triplet: 'mips-linux-gnu', qemu: 'qemu-mips', lp64: false, charSigned: true, endian: 'big' }),
  linux({
    name: 'alpha',
    triplet: 'alpha-linux-gnu',
    qemu: 'qemu-alpha',
    lp64: true,
    charSigned: true,
    endian: 'little',
  }),
  linux({ name: 'hppa', triplet: 'hppa-linux-gnu', qemu: 'qemu-hppa', lp64: false, charSigned: true, endian: 'big' }),
  // ELFv2, as GCC 16 implements it on Debian (checked with the sid root's cross gcc under qemu 11).
  linux({
    name: 'powerpc64le',
    triplet: 'powerpc64le-linux-gnu',
    qemu: 'qemu-ppc64le',
    lp64: true,
    charSigned: false,
    endian: 'little',
  }),
  // LP64D: signed plain char, unlike the other RISC-like targets.
  linux({
    name: 'loongarch64',
    triplet: 'loongarch64-linux-gnu',
    qemu: 'qemu-loongarch64',
    lp64: true,
    charSigned: true,
    endian: 'little',
  }),
]);

/** The model called `name` (`x86_64`, `m68k`, ...), or its triplet; undefined when Kiln has none. */
export function targetByName(name: string): TargetModel | undefined {
  return TARGETS.find((t) => t.name === name || t.triplet === name);
}
