/**
 * The command-line tool run in this process, through main() as bin.ts calls it, with the
 * environment given and nothing else: its exit code and the lines it printed on each stream.
 */
import { main } from '../../src/cli/index.js'

export interface InProcessRun {
  code: number
  stdout: string[]
  stderr: string[]
}

export async function runCliInProcess(
  args: string[],
  env: Record<string, string | undefined>
): Promise<InProcessRun> {
  const stdout: string[] = []
  const stderr: string[] = []
  const code = await main(args, env, {
    stdout: line => stdout.push(line),
    stderr: line => stderr.push(line)
  })
  return { code, stdout, stderr }
}
