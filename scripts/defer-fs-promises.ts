/**
 * A build-time change to @actions/core's summary module in the steps' bundle. When it loads, that
 * module reads `fs.promises` (`const { access, appendFile, writeFile } = fs.promises`), and that
 * first read makes Node load its promise-based fs internals: about 2 ms on every step, for a
 * summary this action appends synchronously (appendSummaryTable in src/github/summary.ts). The
 * change reads `fs.promises` on the first call instead. A bundle that no longer holds the line
 * exactly once fails the build, so an update of @actions/core or ncc cannot drop the change
 * silently.
 */
const SUMMARY_FS_PROMISES = /^const \{ ([\w, ]+) \} = (\w+)\.promises;$/gm

export function deferFsPromises(code: string): string {
  const found = [...code.matchAll(SUMMARY_FS_PROMISES)]
  if (found.length !== 1) {
    throw new Error(
      `bundle: expected @actions/core's summary module to read fs.promises once at load, found ${found.length}. ` +
        'Check node_modules/@actions/core/lib/summary.js and update scripts/defer-fs-promises.ts.'
    )
  }
  const [line, names, fs] = found[0]
  const deferred = names
    .split(', ')
    .map(name => `${name} = (...args) => ${fs}.promises.${name}(...args)`)
    .join(', ')
  return code.replace(line, `const ${deferred};`)
}
