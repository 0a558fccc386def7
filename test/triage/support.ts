// Hand-made findings and fault-injecting fake compilers for triage tests. The program prints
// checksum 1, or 2 when compiled with -DKILN_BUG: a fake compiler "miscompiles" by adding that
// define, under conditions on the options it is given.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The line the program prints when compiled correctly. */
const EXPECTED = 'checksum = 0000000000000001';

/** A tiny program whose output a fake compiler can change with one define. */
export const PROGRAM = `/* kiln: expected "${EXPECTED}" */
#include <stdio.h>
#ifdef KILN_BUG
#define V 2ULL
#else
#define V 1ULL
#endif
int main(void) {
    unsigned long long v = V;
    for (int i = 0; i < 3; i++) v = v * 1ULL;
    printf("checksum = %016llX\\n", v);
    return 0;
}
`;

/** What goes into a hand-made finding.json. */
export interface FindingSpec {
  readonly id: string;
  readonly compiler: string;
  readonly compilerPath: string;
  readonly options: string;
  readonly outcome?: string;
  readonly bucket?: string;
}

/** Writes a finding folder as `kiln fuzz` would (prog.c, finding.json) and returns its path. */
export function writeFinding(parent: string, spec: FindingSpec): string {
  const dir = join(parent, spec.id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'prog.c'), PROGRAM);
  writeFileSync(join(dir, 'finding.json'), `${JSON.stringify(findingJson(spec), null, 2)}\n`);
  return dir;
}

/** The manifest of a hand-made finding. */
export function findingJson(spec: FindingSpec): Record<string, unknown> {
  const outcome = spec.outcome ?? 'wrong-code';
  return {
    id: spec.id,
    outcome,
    bucket: spec.bucket ?? `${outcome}:${spec.compiler}:${spec.options}`,
    compiler: spec.compiler,
    compilerVersion: 'fake',
    compilerPath: spec.compilerPath,
    options: spec.options,
    expected: EXPECTED,
    actual: 'checksum = 0000000000000002',
    limits: { compile: { timeoutMs: 60_000, memoryMb: 2048 }, run: { timeoutMs: 10_000, memoryMb: 2048 } },
  };
}

function script(dir: string, name: string, body: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, body);
  chmodSync(path, 0o755);
  return path;
}

/**
 * A fake clang: real clang-14 compiles, but its opt-bisect lines are replaced by `passes` fake
 * ones (pass `culprit` is `Kiln Fault Injection on function (main)`), and the program is
 * miscompiled when the limit is absent, -1, or at least `culprit` (`culprit` 0: always).
 */
export function writeFakeClang(dir: string, name: string, culprit: number, passes = 40): string {
  return script(
    dir,
    name,
    `#!/bin/sh
limit=-1; bisect=
for a; do case $a in -opt-bisect-limit=*) limit=\${a#-opt-bisect-limit=}; bisect=1;; esac; done
bug=
if [ "$limit" -lt 0 ] || [ "$limit" -ge ${culprit} ]; then bug=-DKILN_BUG; fi
if [ -n "$bisect" ]; then
  i=1
  while [ $i -le ${passes} ]; do
    if [ $i -eq ${culprit} ]; then what="Kiln Fault Injection on function (main)"
    elif [ $((i % 3)) -eq 0 ]; then what="LICMPass on Loop at depth 1 containing: %7<header><latch><exiting>"
    elif [ $((i % 3)) -eq 1 ]; then what="InstCombinePass on main"
    else what="Loop Strength Reduction on loop"; fi
    if [ "$limit" -lt 0 ] || [ $i -le "$limit" ]; then echo "BISECT: running pass ($i) $what" >&2
    else echo "BISECT: NOT running pass ($i) $what" >&2; fi
    i=$((i + 1))
  done
fi
err=\${TMPDIR:-/tmp}/fake-clang-err.$$
clang-14 $bug "$@" 2> "$err"; rc=$?
grep -v '^BISECT' "$err" >&2; rm -f "$err"
exit $rc
`,
  );
}

/** A fake gcc: real gcc, miscompiling unless one of `cures` (e.g. `-fno-tree-vrp`) is among the options. */
export function writeFakeGcc(dir: string, name: string, cures: readonly string[]): string {
  return script(
    dir,
    name,
    `#!/bin/sh
bug=-DKILN_BUG
for a; do case $a in ${cures.join('|')}) bug=;; esac; done
for a; do case $a in --version|-Q|-dumpversion) bug=;; esac; done
exec gcc $bug "$@"
`,
  );
}
