/** The bundle's entry (dist/cli/index.cjs): the real process, its streams and its exit code. */
import { main } from './index.js'

const terminal = {
  stdout: (line: string) => process.stdout.write(`${line}\n`),
  stderr: (line: string) => process.stderr.write(`${line}\n`)
}

// exitCode, not exit(): stdout may still be flushing to a pipe.
process.exitCode = await main(process.argv.slice(2), process.env, terminal)
