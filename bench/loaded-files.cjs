/* global require */
// Preloaded with --require into a step the bench starts: at exit, writes the JavaScript files
// the process loaded (require's cache) to the file BENCH_LOADED_FILES names, one a line, so the
// bench can check that a step without `expose` never loads the tunnel's chunk.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { writeFileSync } = require('node:fs')

process.on('exit', () => {
  const out = process.env.BENCH_LOADED_FILES
  if (out) writeFileSync(out, `${Object.keys(require.cache).join('\n')}\n`)
})
