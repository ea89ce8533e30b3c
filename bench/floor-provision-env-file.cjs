/* global require */
// The floor for `tunnel-credentials provision`: floor-provision.cjs's POST with node:https, but
// given its inputs as the CLI is (SVC_* variables) and leaving what the CLI leaves, tunnel.env in
// the working folder with one `NAME='value'` line per variable and mode 0600, instead of lines
// appended to GITHUB_ENV. Both sides then read the same environment and write the same file, and
// one check holds for both. CommonJS, as the CLI's bundle (dist/cli/index.cjs) is.
/* eslint-disable @typescript-eslint/no-require-imports */
const { writeFileSync } = require('node:fs')
const { request } = require('node:https')

const env = process.env
const quoted = value => `'${String(value).replace(/'/g, `'\\''`)}'`
const outgoing = request(`${env.SVC_BASE_URL}/credential-provision`, {
  method: 'POST',
  headers: {
    'X-API-Key': env.SVC_API_KEY,
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'User-Agent': 'floor-provision-env-file'
  }
})
outgoing.on('response', incoming => {
  let text = ''
  incoming.setEncoding('utf8')
  incoming.on('data', chunk => (text += chunk))
  incoming.on('end', () => {
    if (incoming.statusCode !== 200) {
      console.error(`Error: credential-provision answered ${incoming.statusCode}`)
      process.exit(1)
    }
    const credential = JSON.parse(text)
    writeFileSync(
      'tunnel.env',
      `SVC_TUNNEL_TOKEN=${quoted(credential.token)}\n` +
        `SVC_TUNNEL_USER=${quoted(credential.tunnel_user)}\n` +
        `SVC_TUNNEL_HOST=${quoted(credential.tunnel_host)}\n` +
        `SVC_TUNNEL_PORT=${quoted(credential.tunnel_port)}\n`,
      { mode: 0o600 }
    )
  })
})
outgoing.on('error', error => {
  console.error(`Error: credential-provision: ${error.message}`)
  process.exit(1)
})
outgoing.end(JSON.stringify({ project: env.SVC_PROJECT }))
