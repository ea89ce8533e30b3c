/* global require */
// The floor for the main step: a bare node script that makes the same POST with node:https (no
// fetch: that loads undici on first use, which a step need not pay for) and appends the four
// variables to GITHUB_ENV. Reads the inputs as the runner passes them. CommonJS, as the action's
// bundle (dist/index.cjs) is: an ES module costs Node 24 its ESM loader, some 4 to 5 ms that the
// bundle does not pay, and a floor that pays them would flatter the step.
/* eslint-disable @typescript-eslint/no-require-imports */
const { appendFileSync } = require('node:fs')
const { request } = require('node:https')

const input = name => process.env[`INPUT_${name.toUpperCase()}`] ?? ''
const body = JSON.stringify({ project: input('project') })
const outgoing = request(`${input('base-url')}/credential-provision`, {
  method: 'POST',
  headers: {
    'X-API-Key': input('api-key'),
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'User-Agent': 'floor-provision'
  }
})
outgoing.on('response', incoming => {
  let text = ''
  incoming.setEncoding('utf8')
  incoming.on('data', chunk => (text += chunk))
  incoming.on('end', () => {
    if (incoming.statusCode !== 200) {
      console.log(`::error::credential-provision answered ${incoming.statusCode}`)
      process.exit(1)
    }
    const credential = JSON.parse(text)
    const prefix = input('env-prefix') || 'SVC'
    appendFileSync(
      process.env.GITHUB_ENV,
      `${prefix}_TUNNEL_TOKEN=${credential.token}\n` +
        `${prefix}_TUNNEL_USER=${credential.tunnel_user}\n` +
        `${prefix}_TUNNEL_HOST=${credential.tunnel_host}\n` +
        `${prefix}_TUNNEL_PORT=${credential.tunnel_port}\n`
    )
  })
})
outgoing.on('error', error => {
  console.log(`::error::credential-provision: ${error.message}`)
  process.exit(1)
})
outgoing.end(body)
