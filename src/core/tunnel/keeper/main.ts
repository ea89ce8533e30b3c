/**
 * The detached tunnel process (bundled on its own as dist/tunnel/index.cjs, so a step without
 * `expose` never loads ssh2). Main sends the configuration, token included, as the first IPC
 * message: never on the command line or in the environment, where other processes can read it.
 * stdout and stderr go to the keeper's log file (main opens it), never to the step's pipes.
 */
import { appendFileSync } from 'node:fs'
import type { KeeperConfig, KeeperReport, MainMessage } from '../protocol.js'
import { Keeper } from './keeper.js'

let ready = false
// Main starts this process before it has the credential, and lets go only after ready. A main
// that went away before then (its credential refused, or killed by a step timeout) will never
// configure it: leave with it, and post, finding it gone and never ready, says nothing.
process.once('disconnect', () => {
  if (!ready) process.exit(3)
})
// On a busy machine main can be gone before this code runs, and then no disconnect event comes.
if (!process.connected) process.exit(3)

// Post's signal, sent only once it proved this is the process main started (identity.ts): it
// works where the stop file cannot, in a directory a later step emptied. An interrupt or hang-up
// stops it the same way, so the request log is written whole first. Before the configuration
// there is nothing to close.
let stopOnSignal = (): void => process.exit(0)
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => stopOnSignal())
}

process.once('message', (config: KeeperConfig) => {
  const keeper = new Keeper(config, {
    // After ready, main disconnects and exits; nothing is sent after that.
    report: (report: KeeperReport) => {
      ready = report.type === 'ready'
      if (process.connected) process.send!(report)
    },
    now: () => Date.now(),
    random: () => Math.random(),
    pid: process.pid,
    // launch.ts starts the keeper with --expose-gc for this.
    ...(typeof globalThis.gc === 'function' && {
      collectYoung: () => globalThis.gc!({ type: 'minor', execution: 'sync' }),
      collectOld: () => void globalThis.gc!({ type: 'major', execution: 'async' })
    })
  })
  const crash = (error: Error): never => {
    appendFileSync(config.logPath, `${new Date().toISOString()} Crashed: ${error.stack}\n`)
    keeper.crashed(error)
    process.exit(1)
  }
  process.on('uncaughtException', crash)
  stopOnSignal = () => keeper.stop()
  // Main keeps the channel while it proves the URLs; its word that it is done, or its leaving,
  // ends the proof: no nonce is answered after it.
  process.on('message', (message: MainMessage) => {
    if (message.type === 'proof-over') keeper.proofOver()
  })
  process.once('disconnect', () => keeper.proofOver())
  keeper.run().then(() => process.exit(0), crash)
})
