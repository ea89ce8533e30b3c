import { keeperEnvironmentOnRunner as keeperEnvironment } from '../../src/github/keeper-launch.js'

it('keeps the keeper environment to what Node needs and the runner tracking id', () => {
  expect(
    keeperEnvironment({
      PATH: '/bin',
      Path: 'C:\\bin',
      HOME: '/home/runner',
      SystemRoot: 'C:\\Windows',
      RUNNER_TRACKING_ID: 'github_123',
      'INPUT_API-KEY': 'sk_secret',
      SVC_TUNNEL_TOKEN: 'tok_secret',
      ACTIONS_RUNTIME_TOKEN: 'secret',
      NODE_OPTIONS: '--require evil.js',
      EMPTY: undefined
    })
  ).toStrictEqual({
    PATH: '/bin',
    Path: 'C:\\bin',
    HOME: '/home/runner',
    SystemRoot: 'C:\\Windows',
    RUNNER_TRACKING_ID: 'github_123'
  })
})
