/**
 * Stands in for `tunnel` in the bundle (mapped in src/tsconfig.json, like undici).
 * `@actions/http-client` imports the `tunnel` package at load time, and with it `assert`, `tls`,
 * `events` and `util`, but calls it only to build a proxy agent, when https_proxy or http_proxy
 * applies to the request. This module loads the real package on that first call instead, so a run
 * without a proxy does not evaluate it. The four functions are the ones http-client calls.
 */
import type { Agent } from 'node:http'

type AgentFactory = (options: object) => Agent
interface TunnelPackage {
  httpOverHttp: AgentFactory
  httpsOverHttp: AgentFactory
  httpOverHttps: AgentFactory
  httpsOverHttps: AgentFactory
}

let loaded: TunnelPackage | undefined

function tunnelPackage(): TunnelPackage {
  // A require inside a function: ncc still bundles the package, but evaluates it only when this
  // runs. The path names the file, so tsconfig's "tunnel" mapping does not lead back here.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('tunnel/lib/tunnel.js') as TunnelPackage
  return loaded
}

export const httpOverHttp: AgentFactory = options => tunnelPackage().httpOverHttp(options)
export const httpsOverHttp: AgentFactory = options => tunnelPackage().httpsOverHttp(options)
export const httpOverHttps: AgentFactory = options => tunnelPackage().httpOverHttps(options)
export const httpsOverHttps: AgentFactory = options => tunnelPackage().httpsOverHttps(options)
