/**
 * No option of the CLI may be a name Node takes for itself. Node reads `--env-file` from the
 * whole command line, after the script's name too, before the tool's code runs: it loads the file
 * (and obeys a NODE_OPTIONS line in it) or exits 9. Checked against the flags Node 20 and Node 24
 * know, and by running both with every option name on the command line of a script.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  ACTION_OPTIONS,
  CLI_OPTIONS,
  RETIRED_OPTIONS,
  SECRET_OPTIONS
} from '../../src/cli/option-names.js'
import { ensureNode24 } from '../../scripts/node24.js'

const OUR_FLAGS = [...ACTION_OPTIONS, ...CLI_OPTIONS, ...SECRET_OPTIONS].map(name => `--${name}`)
const nodes = () => [process.execPath, ensureNode24()]

/** Node spells its flags with dashes or underscores alike. */
const normal = (flag: string) => flag.replace(/_/g, '-')

function nodeFlags(node: string): Set<string> {
  const help = execFileSync(node, ['--help'], { encoding: 'utf8' })
  return new Set([...help.matchAll(/(?<![\w-])--[a-z][a-z0-9_-]*/g)].map(match => normal(match[0])))
}

let dir: string
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'cli-option-names-'))))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("the CLI's option names", () => {
  it('are none of the flags Node 20 and Node 24 list in --help, nor of NODE_OPTIONS', () => {
    const taken = new Set([...process.allowedNodeEnvironmentFlags].map(normal))
    for (const node of nodes()) for (const flag of nodeFlags(node)) taken.add(flag)
    // The lists are real: they hold the flag that made this test necessary.
    expect(taken).toContain('--env-file')
    expect(OUR_FLAGS.filter(flag => taken.has(normal(flag)))).toEqual([])
  })

  it('reach the script untouched on Node 20 and Node 24, and make Node load no file', () => {
    // A file in the shape Node's --env-file reads: were any option taken by Node, the
    // NODE_OPTIONS line would load the marker module before the script.
    const marker = join(dir, 'marker.cjs')
    writeFileSync(marker, 'process.stderr.write("NODE LOADED THE FILE\\n")\n')
    const planted = join(dir, 'planted.env')
    writeFileSync(planted, `NODE_OPTIONS="--require ${marker}"\n`)
    const script = join(dir, 'argv.cjs')
    writeFileSync(script, 'process.stdout.write(JSON.stringify(process.argv.slice(2)))\n')
    const args = OUR_FLAGS.flatMap(flag => [flag, planted, `${flag}=${planted}`])
    for (const node of nodes()) {
      const ran = spawnSync(node, [script, ...args], { encoding: 'utf8', env: { PATH: '' } })
      expect({ node, status: ran.status, stderr: ran.stderr }).toEqual({
        node,
        status: 0,
        stderr: ''
      })
      expect(JSON.parse(ran.stdout)).toEqual(args)
    }
  })

  it('leave out each retired name, which Node takes for itself', () => {
    for (const [retired, successor] of RETIRED_OPTIONS) {
      expect(OUR_FLAGS).not.toContain(`--${retired}`)
      expect(OUR_FLAGS).toContain(`--${successor}`)
    }
  })
})
