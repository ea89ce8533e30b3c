import { mkdtempSync, rmdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'

/** The file's name in its folder, the one OpenSSH itself would give an ed25519 key. */
export const KEY_FILE_NAME = 'id_ed25519'
const FOLDER_PREFIX = 'tunnel-key-'
// mkdtemp adds six characters to the prefix.
const FOLDER_NAME = /^tunnel-key-[A-Za-z0-9]{6}$/

/**
 * A fresh folder (mode 0700) under the runner's temporary directory, which the runner empties
 * after every job; the system's outside a runner.
 */
export function createKeyFolder(env: NodeJS.ProcessEnv): string {
  return mkdtempSync(join(tempRoot(env), FOLDER_PREFIX))
}

/**
 * True for a folder createKeyFolder could have made. The path post deletes comes from saved
 * state, which is not proof that this action wrote it: anything else (say ~/.ssh, which holds an
 * id_ed25519 too) is left alone.
 */
export function isKeyFolder(folder: string, env: NodeJS.ProcessEnv): boolean {
  const path = resolve(folder)
  return dirname(path) === resolve(tempRoot(env)) && FOLDER_NAME.test(basename(path))
}

function tempRoot(env: NodeJS.ProcessEnv): string {
  return env.RUNNER_TEMP || tmpdir()
}

/**
 * Writes the private key, readable by its owner only: OpenSSH refuses a key file others can read.
 * `wx` fails rather than write through a file or link that is already there.
 */
export function writeKeyFile(folder: string, privateKeyFile: string): string {
  const path = join(folder, KEY_FILE_NAME)
  writeFileSync(path, privateKeyFile, { mode: 0o600, flag: 'wx' })
  return path
}

/**
 * Deletes the key file and then its folder. Only those two: the folder's path comes from saved
 * state, and a recursive delete of a wrong path would do harm, while this fails harmlessly.
 */
export function removeKeyFolder(folder: string): void {
  rmSync(join(folder, KEY_FILE_NAME), { force: true })
  try {
    rmdirSync(folder)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}
