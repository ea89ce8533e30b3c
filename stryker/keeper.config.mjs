// The tunnel process's reading of HTTP: the framing rules that keep a request from smuggling
// another past the gate, the streaming reader, the first-bytes sniffer, and the gate's check
// (with its cookie and its reading of a browser's navigation), against their unit tests.
import { mutationRun } from './shared.mjs'

export default mutationRun({
  name: 'keeper',
  mutate: [
    'src/core/tunnel/keeper/http/rules.ts',
    'src/core/tunnel/keeper/http/framing.ts',
    'src/core/tunnel/keeper/http/sniff.ts',
    'src/core/tunnel/keeper/gate.ts',
    'src/core/tunnel/keeper/gate-cookie.ts',
    'src/core/tunnel/keeper/navigation.ts'
  ],
  tests: [
    '__tests__/core/tunnel/keeper/http/*.test.ts',
    '__tests__/core/tunnel/keeper/gate-check.test.ts',
    '__tests__/core/tunnel/keeper/gate-navigation.test.ts',
    '__tests__/core/tunnel/keeper/gate-browser-units.test.ts'
  ]
})
