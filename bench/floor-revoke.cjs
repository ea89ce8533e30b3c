/* global require */
// The floor for the post step: a bare node script that makes the revoke POST with node:https, for
// the tunnel user the main step saved (STATE_credential, as the runner passes saved state).
// CommonJS, as the action's bundle is (see floor-provision.cjs).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { request } = require('node:https')

const input = name => process.env[`INPUT_${name.toUpperCase()}`] ?? ''
const saved = JSON.parse(process.env.STATE_credential ?? '{}')
const outgoing = request(`${input('base-url')}/revoke-token`, {
  method: 'POST',
  headers: {
    'X-API-Key': input('api-key'),
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'User-Agent': 'floor-revoke'
  }
})
outgoing.on('response', incoming => {
  if (incoming.statusCode < 200 || incoming.statusCode > 299) {
    console.log(`::error::revoke-token answered ${incoming.statusCode}`)
    process.exit(1)
  }
  incoming.resume()
})
outgoing.on('error', error => {
  console.log(`::error::revoke-token: ${error.message}`)
  process.exit(1)
})
outgoing.end(JSON.stringify({ tunnel_user: saved.tunnelUser }))
