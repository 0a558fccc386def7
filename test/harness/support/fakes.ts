// Fault-injecting fake compilers: shell scripts wrapping gcc that fail on chosen seeds. The seed
// is read from the header Kiln writes into each program ("..., seed N."); a program of several
// files has that header in each, and the fakes read it from the last C file.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Common prologue: finds the sources (all, and the last) and output among the arguments, and the program's seed. */
const PROLOGUE = `#!/bin/sh
src=; srcs=; out=; prev=
for a; do
  case $a in *.c) src=$a; srcs="$srcs $a";; esac
  [ "$prev" = -o ] && out=$a
  prev=$a
done
seed=; [ -n "$src" ] && seed=$(sed -n 's/.*, seed \\([0-9][0-9]*\\)\\..*/\\1/p' "$src" | head -n 1)
hit() { for s; do [ "$seed" = "$s" ] && return 0; done; return 1; }
`;

/** What a fake does on its seeds. */
export type Fault =
  | 'wrong-code' // bumps the checksum's initial value (in whichever file defines it), then compiles with gcc
  | 'ice' // prints a GCC-like ICE whose location and address vary with the seed, exits 1
  | 'segv' // the compiler kills itself with SIGSEGV
  | 'hang' // the compiler sleeps
  | 'reject' // exits 1 with an ordinary error
  | 'binary-crash' // writes a "binary" that kills itself with SIGSEGV
  | 'binary-hang' // writes a "binary" that sleeps
  | 'flaky' // crashes with an ICE the first time it sees a program, compiles it fine afterwards
  | 'stack' // a binary that traps or prints a wrong checksum depending on its stack address (bit 4): random under ASLR, fixed without it
  | 'alternating' // a "binary" that prints a wrong checksum and crashes (SIGSEGV) on alternate runs
  | 'report-env' // a "binary" that logs its argv[0], environment, personality and folder length, then exits 3
  | 'slow' // the compiler takes 3 s, then compiles with gcc
  | 'slow-opt' // optimising (any option but -O0) a program with a for loop takes 25 s, then compiles with gcc
  | 'hang-pid' // the compiler records its pid in <state>/pids, then sleeps
  | 'escape'; // the compiler starts a child in a session of its own (setsid), records its pid in <state>/pids, then sleeps

function faultBody(f: Fault, stateDir: string): string {
  switch (f) {
    case 'wrong-code':
      return [
        'fakes=',
        `for f in $srcs; do sed 's/\\(kiln_crc = 0x[0-9A-F]*ULL\\)/\\1 + 1/' "$f" > "$f.fake.c" || exit 1; fakes="$fakes $f.fake.c"; done`,
        'exec gcc -O0 $fakes -o "$out" -lm',
      ].join('\n');
    case 'ice':
      return [
        `n=$((seed * 37 + 11))`,
        `echo "$PWD/$src: In function 'func_$seed':" >&2`,
        `echo "$PWD/$src:$n:$seed: internal compiler error: in expand_expr_real_1, at expr.cc:$n" >&2`,
        `echo "0x$n$n$n internal_error(char const*, ...)" >&2`,
        `echo "Please submit a full bug report, with preprocessed source (by using -freport-bug)." >&2`,
        `exit 1`,
      ].join('\n');
    case 'segv':
      return 'kill -SEGV $$';
    case 'hang':
      return 'sleep 60';
    case 'reject':
      return `echo "$src:3:1: error: expected ';' before '}' token" >&2\nexit 1`;
    case 'binary-crash':
      // The "binary" records where it runs, then crashes.
      return `printf '#!/bin/sh\\necho "$PWD" >> "%s"\\nkill -SEGV $$\\n' "${stateDir}/run.dirs" > "$out" && chmod +x "$out" && exit 0`;
    case 'binary-hang':
      return `printf '#!/bin/sh\\nsleep 60\\n' > "$out" && chmod +x "$out" && exit 0`;
    case 'stack':
      // main becomes a wrapper that looks at where its stack is before running the real main.
      return [
        `sed 's/^int main(void)/static int kiln_real_main(void)/' "$src" > "$src.fake.c" || exit 1`,
        `printf '%s\n' 'int main(void) { volatile char probe = 0; if ((((unsigned long)&probe) >> 4) & 1) __builtin_trap(); kiln_crc += 1; return kiln_real_main(); }' >> "$src.fake.c"`,
        'exec gcc -O0 "$src.fake.c" -o "$out" -lm',
      ].join('\n');
    case 'alternating':
      return `printf '#!/bin/sh\nn=$(cat "%s/count" 2>/dev/null || echo 0)\necho $((n + 1)) > "%s/count"\nif [ $((n %% 2)) -eq 0 ]; then echo "checksum = 0000000000000000"; exit 0; fi\nkill -SEGV $$\n' "${stateDir}" "${stateDir}" > "$out" && chmod +x "$out" && exit 0`;
    case 'report-env':
      return `printf '#!/bin/sh\n{ echo "argv0=$0"; echo "personality=$(cat /proc/$$/personality)"; echo "cwdlen=$(readlink /proc/$$/cwd | wc -c)"; tr "\\\\0" "\\\\n" < /proc/$$/environ | sed "s/^KILN_TAG=.*/KILN_TAG=<tag>/" | sort; echo ---; } >> "%s/env.log"\nexit 3\n' "${stateDir}" > "$out" && chmod +x "$out" && exit 0`;
    case 'slow':
      return 'sleep 3\nexec gcc "$@"';
    case 'slow-opt':
      return `case " $* " in *" -O0 "*) ;; *) grep -q 'for (' "$src" && sleep 25;; esac\nexec gcc "$@"`;
    case 'hang-pid':
      return `echo $$ >> "${stateDir}/pids"\nexec sleep 60`;
    case 'escape':
      return `setsid sh -c 'echo $$ >> "${stateDir}/pids"; exec sleep 120' </dev/null >/dev/null 2>&1 &\nexec sleep 60`;
    case 'flaky':
      return [
        `mark="${stateDir}/seen-$seed"`,
        `if [ ! -e "$mark" ]; then : > "$mark"; echo "$src:1:1: internal compiler error: Segmentation fault" >&2; exit 1; fi`,
        `exec gcc "$@"`,
      ].join('\n');
  }
}

/** Writes an executable fake compiler `dir/name` that injects `fault` on `seeds` and is gcc otherwise. */
export function writeFake(dir: string, name: string, fault: Fault, seeds: readonly number[]): string {
  mkdirSync(dir, { recursive: true });
  const stateDir = join(dir, `${name}.state`);
  mkdirSync(stateDir, { recursive: true });
  const path = join(dir, name);
  // Each call records its working directory, so tests can check where compiles ran and that it is gone.
  const log = `[ -n "$src" ] && echo "$PWD" >> "${join(dir, `${name}.dirs`)}"\n`;
  writeFileSync(path, `${PROLOGUE}${log}if [ -n "$seed" ] && hit ${seeds.join(' ')}; then\n${faultBody(fault, stateDir)}\nfi\nexec gcc "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}
