import { join } from 'node:path'
import { isMadeUnder } from '../../src/core/owned-dir.js'

describe('isMadeUnder', () => {
  const root = '/runner/_temp'

  it('takes a directory mkdtemp made with the prefix directly under the root', () => {
    expect(isMadeUnder(join(root, 'tunnel-Ab3dE9'), root, 'tunnel-')).toBe(true)
    expect(isMadeUnder(`${root}/x/../tunnel-key-Ab3dE9/`, root, 'tunnel-key-')).toBe(true)
  })

  it.each([
    ['another prefix', join(root, 'tunnel-key-Ab3dE9'), 'tunnel-'],
    ['a suffix of another length', join(root, 'tunnel-Ab3dE'), 'tunnel-'],
    ['a suffix with other characters', join(root, 'tunnel-Ab3d.9'), 'tunnel-'],
    ['a deeper directory', join(root, 'x', 'tunnel-Ab3dE9'), 'tunnel-'],
    ['a directory elsewhere', '/home/runner/.ssh', 'tunnel-'],
    ['the root itself', root, 'tunnel-']
  ])('refuses %s', (_what, path, prefix) => {
    expect(isMadeUnder(path, root, prefix)).toBe(false)
  })
})
