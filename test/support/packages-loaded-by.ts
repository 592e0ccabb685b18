/**
 * A child script: loads the module named by its argument (a path) and prints, as JSON, every
 * package that loading it loaded.
 */
const [target] = process.argv.slice(2);
if (!target) throw new Error('usage: packages-loaded-by <module path>');
require(target);
const packages = new Set(
  Object.keys(require.cache).flatMap((file) => {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    return match?.[1] ? [match[1]] : [];
  }),
);
process.stdout.write(JSON.stringify([...packages].sort()));
