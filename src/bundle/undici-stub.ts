/**
 * Stands in for `undici` in the bundle (src/tsconfig.json maps the name here, and ncc follows
 * that mapping). `@actions/http-client` imports undici's ProxyAgent at load time but uses it
 * only in `getAgentDispatcher`, which this action never calls: its requests go through Node's
 * http/https agents, and proxies through the `tunnel` package. Keeping undici (about 900 KB)
 * out of dist/ saves the runner loading it on every step.
 */
export class ProxyAgent {
  constructor() {
    throw new Error(
      'undici is not bundled with this action: HttpClient.getAgentDispatcher() is unsupported here. ' +
        'Requests (proxies included) go through Node http/https agents instead.'
    )
  }
}
