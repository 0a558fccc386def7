/**
 * The target model: widths and implementation-defined choices of the platform whose
 * behaviour the reference interpreter reproduces. It is data, so another model (ILP32,
 * unsigned plain char) is a new constant, not new code.
 */
export interface TargetModel {
  /** Short name shown in reports, e.g. `lp64`. */
  readonly name: string;
  readonly charBits: number;
  readonly shortBits: number;
  readonly intBits: number;
  readonly longBits: number;
  readonly longLongBits: number;
  readonly pointerBits: number;
  /** Whether plain `char` is signed (true on x86-64 Linux). */
  readonly charSigned: boolean;
  /**
   * Which classic type each `<stdint.h>` exact-width type names. On x86-64 glibc
   * `int64_t` is `long`, so `int64_t + long long` has type `long long` (higher rank).
   */
  readonly stdint: {
    readonly 8: 'signed char';
    readonly 16: 'short';
    readonly 32: 'int';
    readonly 64: 'long' | 'long long';
  };
}

/** x86-64 Linux (System V ABI, glibc): GCC's and Clang's default target on this platform. */
export const LP64: TargetModel = {
  name: 'lp64',
  charBits: 8,
  shortBits: 16,
  intBits: 32,
  longBits: 64,
  longLongBits: 64,
  pointerBits: 64,
  charSigned: true,
  stdint: { 8: 'signed char', 16: 'short', 32: 'int', 64: 'long' },
};
