/**
 * The options only the CLI has: where its files go, and how long a tunnel may live. Checked as
 * the core checks its own, and named in errors as the user set them.
 */
import { statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { ExplainedError } from '../core/errors.js'
import type { OptionSource } from '../core/host.js'
import { checkedOptions } from '../core/settings/input-text.js'
import { optionNamed, readWholeNumber } from '../core/settings/option-values.js'

export const DEFAULT_ENV_FILE = 'tunnel.env'
export const DEFAULT_STATE_FILE_NAME = '.tunnel-credentials.json'
/** A week: far beyond any job, and still a bound. */
const LONGEST_TUNNEL_MINUTES = 7 * 24 * 60

export interface CliSettings {
  envFile: string
  stateFile: string
  outputsFile?: string
  workDir: string
  tunnelMaxMinutes?: number
}

export function readCliSettings(raw: OptionSource): CliSettings {
  const options = checkedOptions(raw)
  const envFile = resolve(options.read('env-file').trim() || DEFAULT_ENV_FILE)
  const stateFile = resolve(
    options.read('state-file').trim() || join(dirname(envFile), DEFAULT_STATE_FILE_NAME)
  )
  const outputsFile = options.read('outputs-file').trim()
  const workDir = resolve(options.read('work-dir').trim() || tmpdir())
  requireDirectory(options, 'work-dir', workDir)
  requireDirectory(options, 'env-file', dirname(envFile))
  requireDirectory(options, 'state-file', dirname(stateFile))
  if (outputsFile) requireDirectory(options, 'outputs-file', dirname(resolve(outputsFile)))
  const distinct = new Set([envFile, stateFile, ...(outputsFile ? [resolve(outputsFile)] : [])])
  if (distinct.size !== (outputsFile ? 3 : 2)) {
    throw new ExplainedError(
      `${optionNamed(options, 'env-file')}, ${options.label('state-file')} and ${options.label('outputs-file')} must name different files.`
    )
  }
  const tunnelMaxMinutes = readWholeNumber(options, 'tunnel-max-minutes', 1, LONGEST_TUNNEL_MINUTES)
  return {
    envFile,
    stateFile,
    ...(outputsFile && { outputsFile: resolve(outputsFile) }),
    workDir,
    ...(tunnelMaxMinutes !== undefined && { tunnelMaxMinutes })
  }
}

function requireDirectory(options: OptionSource, name: string, path: string): void {
  let isDirectory = false
  try {
    isDirectory = statSync(path).isDirectory()
  } catch {
    // Reported below, with the option that leads there.
  }
  if (!isDirectory) {
    const what = name === 'work-dir' ? 'is' : 'is in'
    throw new ExplainedError(
      `${optionNamed(options, name)} ${what} ${path}, which is not an existing directory. Create it first, or choose another.`
    )
  }
}
