// Reads SERVICE_URL, SERVICE_KEY (set by the self-test workflow) and
// SVC_TUNNEL_USER (exported by the action) and fails unless that token is
// listed by the service and no longer active.
const { SERVICE_URL, SERVICE_KEY, SVC_TUNNEL_USER } = process.env

function fail(message) {
  console.log(`::error::${message}`)
  process.exit(1)
}

if (!SERVICE_URL || !SERVICE_KEY) fail('SERVICE_URL or SERVICE_KEY is not set')
if (!SVC_TUNNEL_USER) fail('SVC_TUNNEL_USER is not set: the action did not provision')

const response = await globalThis.fetch(`${SERVICE_URL}/user-tokens-list`, {
  headers: { 'X-API-Key': SERVICE_KEY, Accept: 'application/json' }
})
if (response.status !== 200) fail(`user-tokens-list answered HTTP ${response.status}`)
const { tokens } = await response.json()
const token = tokens.find(t => t.tunnel_user === SVC_TUNNEL_USER)
if (token === undefined) fail(`the service does not list ${SVC_TUNNEL_USER}`)
if (token.status === 'active') fail(`${SVC_TUNNEL_USER} is still active after the post step`)
console.log(`${SVC_TUNNEL_USER} is ${token.status}: the post step revoked it.`)
