import { readFileSync } from 'node:fs'
import { ACTION_VERSION } from '../../src/core/version.js'

it('sends the version package.json declares in the User-Agent', () => {
  const manifest = JSON.parse(
    readFileSync(new URL('../../package.json', import.meta.url), 'utf8')
  ) as { version: string }
  expect(ACTION_VERSION).toBe(manifest.version)
})
