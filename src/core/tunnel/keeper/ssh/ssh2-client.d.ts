// ssh2's client class alone: its index also loads the server, the agents and the HTTP agents
// (with node:http, node:https and node:tls), none of which the keeper uses.
declare module 'ssh2/lib/client.js' {
  import { Client } from 'ssh2'
  export = Client
}
