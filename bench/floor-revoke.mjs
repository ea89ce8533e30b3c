// The floor for the post step: a bare node script that makes the revoke POST with fetch, for the
// tunnel user the main step saved (STATE_credential, as the runner passes saved state), at the
// base-url input, as the post step does.
const input = name => process.env[`INPUT_${name.toUpperCase()}`] ?? ''
const saved = JSON.parse(process.env.STATE_credential ?? '{}')
const response = await fetch(`${input('base-url')}/revoke-token`, {
  method: 'POST',
  headers: {
    'X-API-Key': input('api-key'),
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'User-Agent': 'floor-revoke'
  },
  body: JSON.stringify({ tunnel_user: saved.tunnelUser })
})
if (!response.ok) {
  console.log(`::error::revoke-token answered ${response.status}`)
  process.exit(1)
}
await response.arrayBuffer()
