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
    'src/core/tunnel/keeper/http/gate.ts',
    'src/core/tunnel/keeper/http/gate-cookie.ts',
    'src/core/tunnel/keeper/http/navigation.ts'
  ],
  tests: [
    '__tests__/core/tunnel/keeper/http/framing.test.ts',
    '__tests__/core/tunnel/keeper/http/rules.test.ts',
    '__tests__/core/tunnel/keeper/http/sniff.test.ts',
    '__tests__/core/tunnel/keeper/http/gate-check.test.ts',
    '__tests__/core/tunnel/keeper/http/gate-navigation.test.ts',
    '__tests__/core/tunnel/keeper/http/gate-browser-units.test.ts'
  ]
})
