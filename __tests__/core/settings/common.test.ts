import { isLoopback, readBaseUrl } from '../../../src/core/settings/common.js'
import { optionsFrom as reader } from '../../helpers/options.js'

describe('readBaseUrl', () => {
  it.each([
    ['https://svc.example.test', 'https://svc.example.test/functions/v1'],
    ['https://svc.example.test/', 'https://svc.example.test/functions/v1'],
    ['https://svc.example.test/functions/v1/', 'https://svc.example.test/functions/v1'],
    ['https://svc.example.test:8443/api', 'https://svc.example.test:8443/api'],
    ['http://localhost:8787', 'http://localhost:8787/functions/v1'],
    ['http://127.0.0.5/x', 'http://127.0.0.5/x'],
    ['http://[::1]:9000', 'http://[::1]:9000/functions/v1'],
    ['http://[::1]', 'http://[::1]/functions/v1'],
    ['https://svc.example.test//', 'https://svc.example.test/functions/v1'],
    ['http://localhost:8787///', 'http://localhost:8787/functions/v1']
  ])('%s → %s', (input, expected) => {
    expect(readBaseUrl(reader({ 'base-url': input }))).toBe(expected)
  })

  it.each([
    'http://10.0.0.1',
    'http://localhost.evil.test',
    'http://128.0.0.1',
    'ftp://svc.example.test'
  ])('refuses %s', input => {
    expect(() => readBaseUrl(reader({ 'base-url': input }))).toThrow(/it must use https/)
  })
})

describe('isLoopback', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['127.0.0.1', true],
    ['127.255.1.2', true],
    ['[::1]', true],
    ['::1', true],
    ['127.example.test', false],
    ['10.0.0.1', false]
  ])('%s → %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected)
  })
})
