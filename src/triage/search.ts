// What a pass search concludes, independent of the compiler it searched.

/**
 * The end of one search: a culprit (a pass or an option whose removal hides the bug), no culprit
 * (the bug does not depend on anything the search can switch off), or a finding that did not
 * reproduce with the search's baseline options.
 */
export type SearchOutcome =
  | {
      readonly kind: 'culprit';
      /** The pass or option, as it goes into the fingerprint (`InstCombinePass`, `-ftree-vrp`). */
      readonly name: string;
      readonly detail: string;
      /** Extra options that pin the culprit (`-mllvm -opt-bisect-limit=N`, `-fno-tree-vrp`). */
      readonly culpritOptions: readonly string[];
    }
  | { readonly kind: 'no-culprit'; readonly detail: string }
  | { readonly kind: 'not-reproduced'; readonly detail: string };
