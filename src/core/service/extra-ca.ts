/**
 * The one way to add trust: the `ca-file` option, a PEM file of CA certificates trusted besides
 * Node's own for the service's answers and the URL proof (a runner behind a TLS-inspecting proxy).
 * The GitLab component starts the tool without NODE_EXTRA_CA_CERTS or
 * NODE_TLS_REJECT_UNAUTHORIZED, which a pipeline variable could set to let a proxy read the key.
 */
import type { RequestOptions } from 'node:http'
import { readFileSync } from 'node:fs'
import { rootCertificates } from 'node:tls'
import type { RequestHandler } from '@actions/http-client/lib/interfaces'
import { ExplainedError } from '../errors.js'
import { describeUnexpected } from '../text/describe-error.js'
import { printablePath } from '../text/printable.js'

// A CA bundle is a few hundred kB at most; anything larger is not one.
const MAX_CA_FILE_BYTES = 4 << 20
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g

/** The certificates of the file at `path`, as PEM text; `label` names the option in a message. */
export function readCaFile(path: string, label: string): string {
  let text: string
  try {
    const bytes = readFileSync(path)
    if (bytes.length > MAX_CA_FILE_BYTES) throw new Error('it is larger than 4 MiB')
    text = bytes.toString('utf8')
  } catch (error) {
    throw new ExplainedError(
      `${label} names ${printablePath(path)}, which could not be read: ${describeUnexpected(error)}.`
    )
  }
  const certificates = text.match(PEM_CERTIFICATE)
  if (certificates === null) {
    throw new ExplainedError(
      `${label} names ${printablePath(path)}, which holds no PEM certificate (-----BEGIN CERTIFICATE-----).`
    )
  }
  return certificates.join('\n')
}

/**
 * Trusts Node's own CAs and `ca`, on the agent the client made for this request (an agent's
 * options win over a request's, and a proxy's tunnelling agent reads only its own).
 */
export function trustCa(ca: string): RequestHandler {
  const trusted = [...rootCertificates, ca]
  return {
    prepareRequest(options: RequestOptions) {
      const agent = options.agent as { options?: Record<string, unknown> } | undefined
      if (agent?.options) agent.options.ca = trusted
      ;(options as { ca?: string[] }).ca = trusted
    },
    canHandleAuthentication: () => false,
    handleAuthentication: () => Promise.reject(new Error('not used'))
  }
}
