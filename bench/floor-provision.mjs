// The floor for the main step: a bare node script that makes the same POST with fetch and
// appends the four variables to GITHUB_ENV. Reads the inputs as the runner passes them.
import { appendFileSync } from 'node:fs'

const input = name => process.env[`INPUT_${name.toUpperCase()}`] ?? ''
const response = await fetch(`${input('base-url')}/credential-provision`, {
  method: 'POST',
  headers: {
    'X-API-Key': input('api-key'),
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'User-Agent': 'floor-provision'
  },
  body: JSON.stringify({ project: input('project') })
})
if (!response.ok) {
  console.log(`::error::credential-provision answered ${response.status}`)
  process.exit(1)
}
const credential = await response.json()
const prefix = input('env-prefix') || 'SVC'
appendFileSync(
  process.env.GITHUB_ENV,
  `${prefix}_TUNNEL_TOKEN=${credential.token}\n` +
    `${prefix}_TUNNEL_USER=${credential.tunnel_user}\n` +
    `${prefix}_TUNNEL_HOST=${credential.tunnel_host}\n` +
    `${prefix}_TUNNEL_PORT=${credential.tunnel_port}\n`
)
