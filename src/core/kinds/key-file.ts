import { lstatSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { checkOwnDirectory, directoryId, isMadeUnder } from '../owned-dir.js'

/** The file's name in its folder, the one OpenSSH itself would give an ed25519 key. */
const KEY_FILE_NAME = 'id_ed25519'
const FOLDER_PREFIX = 'tunnel-key-'

export interface KeyFolder {
  path: string
  /** Its device and inode (owned-dir.ts), saved so post deletes in this folder and no other. */
  id: string
}

/** As read back from saved state, which may lack the id. */
export type SavedKeyFolder = Pick<KeyFolder, 'path'> & { id: string | undefined }

/**
 * A fresh folder (mode 0700) under the host's temporary root (RUNNER_TEMP on GitHub), which the
 * host empties after every job.
 */
export function createKeyFolder(tempRoot: string): KeyFolder {
  const path = mkdtempSync(join(tempRoot, FOLDER_PREFIX))
  return { path, id: directoryId(path) }
}

/**
 * True for a folder createKeyFolder could have made. The path post deletes comes from saved
 * state, which is not proof that this action wrote it: anything else (say ~/.ssh, which holds an
 * id_ed25519 too) is left alone.
 */
export function isKeyFolder(folder: string, tempRoot: string): boolean {
  return isMadeUnder(folder, tempRoot, FOLDER_PREFIX)
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
 * Deletes the key file and then its folder, once the folder is proven to be the one
 * createKeyFolder made (a real directory of this user, same device and inode), and returns
 * undefined; otherwise deletes nothing and returns why. Only those two: the path comes from saved
 * state, and a recursive delete of a wrong path would do harm, while this fails harmlessly.
 */
export function removeKeyFolder(folder: SavedKeyFolder): string | undefined {
  const check = checkOwnDirectory(folder.path, folder.id)
  if (!check.ours) return check.missing ? undefined : check.reason
  const file = join(folder.path, KEY_FILE_NAME)
  // rm on a link removes the link, never its target; anything else of that name is not ours.
  if (isFileOrLink(file)) rmSync(file, { force: true })
  try {
    rmdirSync(folder.path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  return undefined
}

function isFileOrLink(path: string): boolean {
  try {
    const stats = lstatSync(path)
    return stats.isFile() || stats.isSymbolicLink()
  } catch {
    return false
  }
}
