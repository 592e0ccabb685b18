import path from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * The front end's libraries, served from node_modules under fixed names: no bundler step, and only
 * these exact files (not a directory) are reachable. htm's Preact build is one ES module with
 * Preact, its hooks and htm inside — no bare `import 'preact'` to resolve, which would need an
 * import map, and an inline import map is a script the Content-Security-Policy refuses.
 */
const vendorFiles: Record<string, { pkg: string; file: string }> = {
  'preact-htm.js': { pkg: 'htm', file: 'preact/standalone.module.js' },
  'uplot.js': { pkg: 'uplot', file: 'dist/uPlot.esm.js' },
  'uplot.css': { pkg: 'uplot', file: 'dist/uPlot.min.css' },
};

/** The package's folder: up from its main file (neither package exports its package.json). */
function packageDir({ pkg }: { pkg: string }): string {
  let dir = path.dirname(require.resolve(pkg));
  while (path.basename(dir) !== pkg) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the ${pkg} package's folder: run npm install`);
    dir = parent;
  }
  return dir;
}

/** `GET /vendor/<name>` for the names above; reads need what every page needs. */
export function registerVendorRoutes({ app }: { app: FastifyInstance }): void {
  for (const [name, { pkg, file }] of Object.entries(vendorFiles)) {
    const dir = packageDir({ pkg });
    app.get(`/vendor/${name}`, (_request, reply) => reply.sendFile(file, dir));
  }
}
