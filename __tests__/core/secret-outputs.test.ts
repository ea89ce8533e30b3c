/**
 * The hand-over's guard on the outputs the table marks secret: one that holds no masked text is
 * masked whole; one that holds a masked secret, or that the table calls plain, is left alone.
 */
import { OUTPUTS } from '../../src/core/options/output-facts.js'
import { provision } from '../../src/core/provision.js'
import { recordingMasks, unmaskedSecretOutputs } from '../../src/core/secret-outputs.js'
import { memoryHost } from '../helpers/memory-host.js'

describe('the secret outputs at the hand-over', () => {
  it('passes every mask on to the host, and remembers it', () => {
    const host = memoryHost()
    const { host: recording, masked } = recordingMasks(host)
    recording.mask(['s3cret', 'other'])
    expect(host.masks).toEqual(['s3cret', 'other'])
    expect([...masked]).toEqual(['s3cret', 'other'])
  })

  it('names the value of each output the table marks secret that no mask covers, and no other', () => {
    const outputs = Object.fromEntries(OUTPUTS.map(output => [output.name, `${output.name}=v`]))
    expect(unmaskedSecretOutputs(outputs, new Set(['unrelated']))).toEqual(
      OUTPUTS.filter(output => output.secret).map(output => `${output.name}=v`)
    )
    expect(OUTPUTS.filter(output => output.secret).length).toBeGreaterThan(1)
  })

  it('leaves an output that holds a masked secret, and an empty one', () => {
    const outputs = { 'protect-header': 'X-Tunnel-Gate: s3cret', token: '', url: 'https://u' }
    expect(unmaskedSecretOutputs(outputs, new Set(['', 's3cret']))).toEqual([])
  })

  it('adds no mask to a step whose secrets were masked as they came', async () => {
    const token = 'tok_existing_0123456789abcdef'
    const host = memoryHost({
      options: {
        credential: 'existing',
        'tunnel-token': token,
        'tunnel-user': 'u1',
        'tunnel-host': 'tunnel.example.test'
      }
    })
    expect(await provision(host)).toEqual({ status: 'provisioned' })
    expect(host.outputs.token).toBe(token)
    // The option's value first thing, then the kind's own: the hand-over adds none.
    expect(host.masks).toEqual([token, token])
  })
})
