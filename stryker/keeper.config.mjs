// The tunnel process's reading of HTTP: the framing rules that keep a request from smuggling
// another past the gate, the streaming reader, and the first-bytes sniffer, against their unit tests.
import { mutationRun } from './shared.mjs'

export default mutationRun({
  name: 'keeper',
  mutate: [
    'src/core/tunnel/keeper/http/rules.ts',
    'src/core/tunnel/keeper/http/framing.ts',
    'src/core/tunnel/keeper/http/sniff.ts'
  ],
  tests: ['__tests__/core/tunnel/keeper/http/*.test.ts']
})
