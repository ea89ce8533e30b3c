/**
 * Proof that a directory named in saved state is still the one this action made, before post
 * writes or deletes anything in it. Its path alone is no proof: a later step can put a symbolic
 * link to ~/.ssh, or another directory, at that path. Main saves the directory's device and inode
 * when it makes it; post goes ahead only for a real directory (not a link) of this user with the
 * same device and inode.
 */
import { lstatSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'

/**
 * True for a path mkdtemp could have made with `prefix` directly under `root` (it adds six
 * characters). The path comes from saved state, which is no proof that this action wrote it:
 * anything else (say ~/.ssh) is left alone before its device and inode are even looked at.
 */
export function isMadeUnder(path: string, root: string, prefix: string): boolean {
  const full = resolve(path)
  const name = basename(full)
  return (
    dirname(full) === resolve(root) &&
    name.startsWith(prefix) &&
    /^[A-Za-z0-9]{6}$/.test(name.slice(prefix.length))
  )
}

/** `dev:ino` of the directory at `path` (exact, as bigints: inodes may pass 2^53). */
export function directoryId(path: string): string {
  const stats = lstatSync(path, { bigint: true })
  return `${stats.dev}:${stats.ino}`
}

export type DirectoryCheck = { ours: true } | { ours: false; missing: boolean; reason: string }

export function checkOwnDirectory(path: string, savedId: string | undefined): DirectoryCheck {
  let stats
  try {
    stats = lstatSync(path, { bigint: true })
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT'
    return { ours: false, missing, reason: missing ? 'it no longer exists' : String(error) }
  }
  const not = (reason: string): DirectoryCheck => ({ ours: false, missing: false, reason })
  if (stats.isSymbolicLink()) return not('it is a symbolic link, not the directory this tool made')
  if (!stats.isDirectory()) return not('it is not a directory')
  const uid = process.getuid?.()
  if (uid !== undefined && stats.uid !== BigInt(uid)) {
    return not(`it belongs to another user (uid ${stats.uid})`)
  }
  if (savedId === undefined) return not('the saved state does not say which directory was made')
  if (`${stats.dev}:${stats.ino}` !== savedId) {
    return not('it is another directory than the one this tool made')
  }
  return { ours: true }
}
