/**
 * The keeper's record: its stats file, which post reads to know whether the keeper ended on its
 * own and to say what it did (post finds and proves the process by saved state: stop.ts). A
 * record that cannot be written before ready fails the start (see Keeper.run): a tunnel whose
 * end and counters would be unknown is not kept.
 */
import { renameSync, writeFileSync } from 'node:fs'
import { HEARTBEAT_MS, type KeeperStats } from '../protocol.js'

export class KeeperRecord {
  private dirty = true
  private lastWrite = 0

  constructor(
    private readonly path: string,
    private readonly now: () => number
  ) {}

  /** A counter changed: written on the next tick. */
  changed(): void {
    this.dirty = true
  }

  /** Writes when something changed a second ago or more, or the heartbeat is due. */
  saveIfDue(stats: KeeperStats): void {
    const since = this.now() - this.lastWrite
    if ((this.dirty && since >= 1_000) || since >= HEARTBEAT_MS) this.save(stats)
  }

  /**
   * Written whole to a temporary name, then renamed, so a reader never sees half a file.
   * Returns why it could not be written (the file and the OS error), or undefined.
   */
  save(stats: KeeperStats): string | undefined {
    stats.updatedAt = new Date(this.now()).toISOString()
    this.lastWrite = this.now()
    this.dirty = false
    const temporary = `${this.path}.tmp`
    try {
      writeFileSync(temporary, `${JSON.stringify(stats)}\n`)
      renameSync(temporary, this.path)
      return undefined
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException
      return `could not write its record ${this.path} (${code ?? message})`
    }
  }
}
