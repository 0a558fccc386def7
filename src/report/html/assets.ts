// The charting library, inlined into every report: Observable Plot's UMD build and the d3 build it
// runs on (chosen by measurement; see ARCHITECTURE.md). Read from the installed packages, so the
// report always carries the version package.json pins.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The scripts a report inlines, in load order. */
export interface ChartAssets {
  readonly d3: string;
  readonly plot: string;
}

/** Reads the minified d3 and Observable Plot builds from node_modules. */
export function loadChartAssets(): ChartAssets {
  return {
    d3: readFileSync(packageFile('d3', 'dist/d3.min.js'), 'utf8'),
    plot: readFileSync(packageFile('@observablehq/plot', 'dist/plot.umd.min.js'), 'utf8'),
  };
}

/** A file inside an installed package (the packages' `exports` maps hide their dist folders from `require.resolve`). */
function packageFile(pkg: string, file: string): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve(pkg));
  while (!existsSync(join(dir, 'package.json')) || !isPackageRoot(join(dir, 'package.json'), pkg)) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`package ${pkg} has no package.json above ${require.resolve(pkg)}`);
    dir = up;
  }
  return join(dir, file);
}

function isPackageRoot(packageJson: string, pkg: string): boolean {
  try {
    return (JSON.parse(readFileSync(packageJson, 'utf8')) as { name?: string }).name === pkg;
  } catch {
    return false;
  }
}
