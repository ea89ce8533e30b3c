/**
 * The options only the CLI has: where its files go, and how long a tunnel may live. Checked as
 * the core checks its own, and named in errors as the user set them.
 */
import { existsSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { ExplainedError } from '../core/errors.js'
import type { OptionSource } from '../core/host.js'
import { checkedOptions } from '../core/settings/input-text.js'
import { optionDefault } from '../core/options/option-facts.js'
import { optionNamed, readWholeNumber } from '../core/settings/option-values.js'
import { printablePath } from '../core/text/printable.js'
import { requestedShare } from './share-mode.js'

export const DEFAULT_ENV_FILE = optionDefault('variables-file')
export const DEFAULT_STATE_FILE_NAME = optionDefault('state-file')
/** The request log's name beside the variables file, when --request-log is not given. */
export const DEFAULT_REQUEST_LOG_NAME = optionDefault('request-log')
/** In the working directory, where GitLab's `artifacts:reports:dotenv` names it. */
export const DEFAULT_SHARED_FILE = optionDefault('shared-credential-file')
/** A week: far beyond any job, and still a bound. */
const LONGEST_TUNNEL_MINUTES = 7 * 24 * 60

export interface CliSettings {
  envFile: string
  stateFile: string
  outputsFile?: string
  /** Where the tunnel writes its request log (a HAR file), with --expose. */
  requestLog: string
  /** With --share create: where the sealed credential goes for the run's other jobs. */
  sharedCredentialFile?: string
  workDir: string
  tunnelMaxMinutes?: number
}

/**
 * `forRevoke`: revoke creates nothing, and must stop and revoke whatever is missing, so a work
 * folder that is gone or a folder at a file's path is no reason to refuse (revoke reports them).
 */
export function readCliSettings(
  raw: OptionSource,
  { forRevoke = false }: { forRevoke?: boolean } = {}
): CliSettings {
  const options = checkedOptions(raw)
  const envFile = resolve(options.read('variables-file').trim() || DEFAULT_ENV_FILE)
  const stateFile = resolve(
    options.read('state-file').trim() || join(dirname(envFile), DEFAULT_STATE_FILE_NAME)
  )
  const outputsFile = options.read('outputs-file').trim()
  const requestLog = resolve(
    options.read('request-log').trim() || join(dirname(envFile), DEFAULT_REQUEST_LOG_NAME)
  )
  const workDir = resolve(options.read('work-dir').trim() || tmpdir())
  // Only a provision that creates a shared credential writes the file; the core checks the value.
  const sharedCredentialFile =
    requestedShare(options) === 'create'
      ? resolve(options.read('shared-credential-file').trim() || DEFAULT_SHARED_FILE)
      : undefined
  if (!forRevoke) {
    requireDirectory(options, 'work-dir', workDir)
    requireDirectory(options, 'variables-file', dirname(envFile))
    requireDirectory(options, 'state-file', dirname(stateFile))
    if (outputsFile) requireDirectory(options, 'outputs-file', dirname(resolve(outputsFile)))
    requireDirectory(options, 'request-log', dirname(requestLog))
    if (sharedCredentialFile) {
      requireDirectory(options, 'shared-credential-file', dirname(sharedCredentialFile))
    }
  }
  refuseSharedFile(options, forRevoke, [
    ['variables-file', envFile],
    ['state-file', stateFile],
    ...(outputsFile ? [['outputs-file', resolve(outputsFile)] as [string, string]] : []),
    ['request-log', requestLog],
    ...(sharedCredentialFile
      ? [['shared-credential-file', sharedCredentialFile] as [string, string]]
      : [])
  ])
  const tunnelMaxMinutes = readWholeNumber(options, 'tunnel-max-minutes', 1, LONGEST_TUNNEL_MINUTES)
  return {
    envFile,
    stateFile,
    ...(outputsFile && { outputsFile: resolve(outputsFile) }),
    requestLog,
    ...(sharedCredentialFile && { sharedCredentialFile }),
    workDir,
    ...(tunnelMaxMinutes !== undefined && { tunnelMaxMinutes })
  }
}

/** Two of the CLI's files at one path would overwrite each other, and revoke would delete both. */
function refuseSharedFile(
  options: OptionSource,
  forRevoke: boolean,
  files: [string, string][]
): void {
  for (const [index, [name, path]] of files.entries()) {
    if (!forRevoke && existsSync(path) && statSync(path).isDirectory()) {
      throw new ExplainedError(
        `${optionNamed(options, name)} is ${printablePath(path)}, which is a directory. Name a file, e.g. ${printablePath(join(path, exampleFileName(name)))}.`
      )
    }
    const other = files.slice(0, index).find(([, earlier]) => earlier === path)
    if (other !== undefined) {
      throw new ExplainedError(
        `${optionNamed(options, other[0])} and ${options.label(name)} both name ${printablePath(path)}. Give each its own file.`
      )
    }
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
      `${optionNamed(options, name)} ${what} ${printablePath(path)}, which is not an existing directory. Create it first, or choose another.`
    )
  }
}

/** A file name to suggest for an option that named a directory. */
function exampleFileName(option: string): string {
  if (option === 'variables-file') return DEFAULT_ENV_FILE
  if (option === 'request-log') return DEFAULT_REQUEST_LOG_NAME
  if (option === 'shared-credential-file') return DEFAULT_SHARED_FILE
  return `${option}.json`
}
