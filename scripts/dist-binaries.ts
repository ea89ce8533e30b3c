/**
 * The check that dist/ holds only JavaScript, JSON and text: no executable and no native binary.
 * The runner executes dist/ as it is committed, so a binary in it is code nobody reviewed in
 * source form, and one built for a single OS. ncc copies any file a bundled package reaches by a
 * path (ssh2's agent support brought util/pagent.exe, a Windows program); the bundle script fails
 * when this finds one, and the bundle test runs it over the committed dist/.
 */
import { closeSync, openSync, readSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const BINARY_NAMES = /\.(exe|dll|node|so(\.\d+)*|dylib)$/i

/** The first bytes of the executable formats: ELF, PE (the DOS stub "MZ"), Mach-O thin and fat. */
const MAGIC: { format: string; bytes: number[] }[] = [
  { format: 'ELF', bytes: [0x7f, 0x45, 0x4c, 0x46] },
  { format: 'PE', bytes: [0x4d, 0x5a] },
  { format: 'Mach-O', bytes: [0xfe, 0xed, 0xfa, 0xce] },
  { format: 'Mach-O', bytes: [0xfe, 0xed, 0xfa, 0xcf] },
  { format: 'Mach-O', bytes: [0xce, 0xfa, 0xed, 0xfe] },
  { format: 'Mach-O', bytes: [0xcf, 0xfa, 0xed, 0xfe] },
  { format: 'Mach-O universal', bytes: [0xca, 0xfe, 0xba, 0xbe] }
]

function headOf(path: string): Buffer {
  const head = Buffer.alloc(4)
  const fd = openSync(path, 'r')
  try {
    return head.subarray(0, readSync(fd, head, 0, head.length, 0))
  } finally {
    closeSync(fd)
  }
}

/** Why a file counts as an executable or native binary, or undefined when it does not. */
export function binaryReason(path: string): string | undefined {
  const { mode } = statSync(path)
  if (mode & 0o111) return `executable mode ${(mode & 0o777).toString(8)}`
  if (BINARY_NAMES.test(path)) return 'a native binary by its name'
  const head = headOf(path)
  const magic = MAGIC.find(({ bytes }) => bytes.every((byte, i) => head[i] === byte))
  return magic && `starts with the ${magic.format} magic bytes`
}

/** Every executable or native binary under `dir`, as "relative/path (reason)", sorted. */
export function findBinaries(dir: string): string[] {
  const found: string[] = []
  for (const name of readdirSync(dir, { recursive: true }).map(String).sort()) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) continue
    const reason = binaryReason(path)
    if (reason) found.push(`${name} (${reason})`)
  }
  return found
}

/** Throws, naming each binary and what to do, when `dir` holds any. */
export function assertNoBinaries(dir: string, label = 'dist/'): void {
  const found = findBinaries(dir)
  if (found.length === 0) return
  throw new Error(
    `bundle: ${label} must hold no executable or native binary, found: ${found.join(', ')}. ` +
      'Keep the module that reaches it out of the bundle (a stub in src/bundle/, or an ncc ' +
      'external), or drop the asset in scripts/bundle.ts if it is never used.'
  )
}
