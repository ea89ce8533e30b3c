/**
 * The gate (`protect`) in a real browser: Debian's Chromium, driven by Playwright with only the
 * `protect-urls` URL, by Playwright with `httpCredentials` and the plain URL, and by Selenium
 * through chromedriver with only the URL. A real tunnel (the service's stand-in: SSH, and its
 * front routing by Host) leads to an app whose page loads a script and an image, calls its API
 * with fetch() and XMLHttpRequest, opens a WebSocket and an SSE stream, and POSTs a form. Each
 * must reach the app, and nothing the app sees may hold the secret or the gate's cookie. Clients
 * that send the secret on each request get their answer: no redirect, no cookie to keep.
 * Nothing is downloaded: both libraries are given the browser's and the driver's paths.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { By, until, type WebDriver } from 'selenium-webdriver'
import * as chrome from 'selenium-webdriver/chrome.js'
import { gateCookieValue } from '../../../../../src/core/tunnel/protocol.js'
import {
  APP_COOKIE,
  startBrowserApp,
  type BrowserApp,
  type SeenByApp
} from '../../../../helpers/browser-app.js'
import { openSocket, startHttpTunnel, type HttpTunnel } from '../../../../helpers/http-tunnel.js'
import { cleanUp } from '../../../../helpers/ssh-stand-in.js'
import { readValidHar } from '../../request-log/records.js'

const CHROMIUM = '/usr/bin/chromium'
const CHROMEDRIVER = '/usr/bin/chromedriver'
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]
const SECRET = randomBytes(32).toString('base64url')
const BASIC = Buffer.from(`tunnel:${SECRET}`).toString('base64')
const COOKIE = gateCookieValue(SECRET)
const COOKIE_NAME = 'tunnel-credentials-gate'
/** What the page reports once every part of it worked. */
const ALL_OK = ['fetch', 'image', 'script', 'sse', 'websocket', 'xhr'].map(part => `${part}=ok`)

let app: BrowserApp
let tunnel: HttpTunnel
let dir: string
/** `web-USER.localhost:PORT`: Chromium resolves any `.localhost` name to the loopback. */
let origin: string
let host: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gate-browser-'))
  app = await startBrowserApp()
  tunnel = await startHttpTunnel([{ name: 'web', host: '127.0.0.1', port: app.port }], 'none', {
    protect: true,
    gateSecret: SECRET,
    // The scheme is what makes the cookie Secure; the host is only the HAR's.
    publicUrls: { web: 'http://web.localhost' },
    // Headers unredacted: the log must still hold neither the secret nor the cookie.
    requestLog: { enabled: true, bodyBytes: 4096, headers: 'unredacted' },
    requestLogFiles: {
      harPath: join(dir, 'requests.har'),
      spoolPath: join(dir, 'requests.spool'),
      tallyPath: join(dir, 'requests.tally.json')
    }
  })
  host = tunnel.hostFor('web')
  origin = `http://${host}`
}, 60_000)
beforeEach(() => (app.seen.length = 0))
afterAll(async () => {
  await cleanUp()
  await app?.close()
  await tunnel?.service.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Every part of the page, as the app saw it: method and path, and the form's body. */
function expectEveryPartReachedTheApp(seen: SeenByApp[]): void {
  // The browser asks for /favicon.ico of its own accord on some pages: not a part of the app's.
  const parts = seen
    .map(request => `${request.method} ${request.target}`)
    .filter(part => part !== 'GET /favicon.ico')
  expect(new Set(parts)).toEqual(
    new Set([
      'GET /',
      'GET /app.js',
      'GET /logo.gif',
      'GET /api/fetch?from=fetch',
      'GET /api/xhr',
      'GET /ws',
      'GET /events',
      'POST /submit'
    ])
  )
  const upgrade = seen.find(request => request.target === '/ws')!
  expect(upgrade.headers.upgrade).toBe('websocket')
  expect(seen.find(request => request.method === 'POST')!.body).toBe('note=from+the+form')
  // The app's own cookie came back with its API call, alone.
  const call = seen.find(request => request.target.startsWith('/api/fetch'))!
  expect(call.headers.cookie).toBe(APP_COOKIE)
  expect(call.headers['x-app']).toBe('fetch')
}

/** No request the app saw holds the secret, its Basic form, the gate's cookie or its name. */
function expectNoGateTrace(seen: SeenByApp[]): void {
  expect(seen.length).toBeGreaterThan(0)
  for (const request of seen) {
    const text = JSON.stringify({ target: request.target, headers: request.headers })
    for (const value of [SECRET, BASIC, COOKIE, COOKIE_NAME]) expect(text).not.toContain(value)
    expect(request.headers.authorization).toBeUndefined()
    expect(request.headers['x-tunnel-gate']).toBeUndefined()
  }
}

describe('Chromium under Playwright', () => {
  let browser: Browser

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS })
  }, 60_000)
  afterAll(async () => browser?.close())

  /** Opens `url`, waits for every part, submits the form; the gate's answers that set its cookie. */
  async function useApp(page: Page, url: string) {
    const admissions: { status: number; location?: string; setCookie: string }[] = []
    page.on('response', async response => {
      const headers = await response.allHeaders()
      const setCookie = headers['set-cookie'] ?? ''
      if (!setCookie.startsWith(COOKIE_NAME)) return
      admissions.push({ status: response.status(), location: headers.location, setCookie })
    })
    await page.goto(url)
    // Waits across the navigation the gate's answer starts, to the app's page.
    await page.waitForSelector(`#results li:nth-child(${ALL_OK.length})`)
    expect((await page.locator('#results li').allTextContents()).sort()).toEqual(ALL_OK)
    await page.click('#send')
    await page.waitForSelector('#done')
    return admissions
  }

  it('with only the protect-urls URL: the whole app works, from a URL without the secret', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const admissions = await useApp(page, `http://tunnel:${SECRET}@${host}/`)
    // Once: the page that takes the browser to the URL without user info, with the cookie.
    expect(admissions).toEqual([
      { status: 200, setCookie: `${COOKIE_NAME}=${COOKIE}; Path=/; HttpOnly; SameSite=Lax` }
    ])
    expect(page.url()).toBe(`${origin}/submit`)
    const cookies = await context.cookies()
    expect(cookies.find(cookie => cookie.name === COOKIE_NAME)).toEqual({
      name: COOKIE_NAME,
      value: COOKIE,
      // Host-only: the browser sends it to this host alone.
      domain: host.split(':')[0],
      path: '/',
      expires: -1,
      httpOnly: true,
      secure: false,
      sameSite: 'Lax'
    })
    expectEveryPartReachedTheApp(app.seen)
    expectNoGateTrace(app.seen)
    await context.close()
  }, 60_000)

  it('with httpCredentials for the app origin and the plain URL: the whole app works', async () => {
    const context = await browser.newContext({
      httpCredentials: { username: 'tunnel', password: SECRET, origin }
    })
    const page = await context.newPage()
    const admissions = await useApp(page, `${origin}/`)
    expect(admissions.map(admission => admission.status)).toEqual([200])
    expect(page.url()).toBe(`${origin}/submit`)
    expectEveryPartReachedTheApp(app.seen)
    expectNoGateTrace(app.seen)
    await context.close()
  }, 60_000)

  it('with the protect-webhook-urls path form: a 303 to the path without the secret', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const admissions = await useApp(page, `${origin}/_tunnel-gate/${SECRET}/`)
    expect(admissions.map(({ status, location }) => [status, location])).toEqual([[303, '/']])
    expectEveryPartReachedTheApp(app.seen)
    expectNoGateTrace(app.seen)
    await context.close()
  }, 60_000)

  it('with a wrong secret: refused, no cookie, and the app sees nothing', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    // Headless Chromium has no one to ask for other credentials: the navigation fails.
    await expect(page.goto(`http://tunnel:wrong@${host}/`)).rejects.toThrow(/AUTH/)
    expect(await context.cookies()).toEqual([])
    expect(app.seen).toEqual([])
    await context.close()
  }, 60_000)
})

describe('Chromium under Selenium (chromedriver)', () => {
  let driver: WebDriver
  let profile: string

  beforeAll(async () => {
    profile = mkdtempSync(join(tmpdir(), 'gate-selenium-'))
    const options = new chrome.Options()
    options.setChromeBinaryPath(CHROMIUM)
    options.addArguments('--headless', ...CHROMIUM_FLAGS, `--user-data-dir=${profile}`)
    // Given the driver's path, selenium-webdriver never runs selenium-manager, which downloads.
    const service = new chrome.ServiceBuilder(CHROMEDRIVER).build()
    driver = chrome.Driver.createSession(options, service)
  }, 60_000)
  afterAll(async () => {
    await driver?.quit()
    if (profile) rmSync(profile, { recursive: true, force: true })
  })

  it('with only the protect-urls URL: the whole app works', async () => {
    await driver.get(`http://tunnel:${SECRET}@${host}/`)
    // Waits across the navigation the gate's answer starts, to the app's page.
    const last = By.css(`#results li:nth-child(${ALL_OK.length})`)
    await driver.wait(until.elementLocated(last), 30_000)
    const items = await driver.findElements(By.css('#results li'))
    const results = await Promise.all(items.map(item => item.getText()))
    expect(results.sort()).toEqual(ALL_OK)
    expect(await driver.getCurrentUrl()).toBe(`${origin}/`)
    const cookie = await driver.manage().getCookie(COOKIE_NAME)
    expect(cookie).toMatchObject({ value: COOKIE, path: '/', httpOnly: true, secure: false })
    await driver.findElement(By.id('send')).click()
    await driver.wait(until.elementLocated(By.id('done')), 30_000)
    expectEveryPartReachedTheApp(app.seen)
    expectNoGateTrace(app.seen)
  }, 60_000)
})

/** One request on its own connection through the front; the whole answer as text. */
async function exchange(lines: string[], body = ''): Promise<string> {
  const client = await openSocket(tunnel.frontPort)
  const head = [...lines, `Host: ${host}`, 'Connection: close']
  if (body !== '') head.push(`Content-Length: ${Buffer.byteLength(body)}`)
  client.socket.write(`${head.join('\r\n')}\r\n\r\n${body}`)
  await client.closed
  return client.received().toString('utf8')
}

describe('clients that send the secret with each request', () => {
  it('get the app’s answer: no redirect, no cookie (Basic, the header, a webhook POST to the path form)', async () => {
    const answers = [
      // curl -u tunnel:SECRET, and an API client asking for JSON.
      await exchange(['GET /api/fetch HTTP/1.1', `Authorization: Basic ${BASIC}`, 'Accept: */*']),
      await exchange([
        'GET /api/xhr HTTP/1.1',
        `Authorization: Basic ${BASIC}`,
        'Accept: application/json'
      ]),
      // curl -H "X-Tunnel-Gate: SECRET", even asking for HTML.
      await exchange(['GET / HTTP/1.1', `X-Tunnel-Gate: ${SECRET}`, 'Accept: text/html']),
      // A webhook sender: a POST to the protect-webhook-urls URL.
      await exchange(
        [
          `POST /_tunnel-gate/${SECRET}/submit HTTP/1.1`,
          'Content-Type: application/x-www-form-urlencoded'
        ],
        'note=from+the+form'
      )
    ]
    for (const answer of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 200 /)
      expect(answer).not.toMatch(/\r\nLocation:/i)
      expect(answer).not.toContain(COOKIE_NAME)
    }
    expect(app.seen.map(request => `${request.method} ${request.target}`)).toEqual([
      'GET /api/fetch',
      'GET /api/xhr',
      'GET /',
      'POST /submit'
    ])
    expectNoGateTrace(app.seen)
  })

  it('a browser’s navigation that does carry it gets a 303 whose Location is a path, never a host', async () => {
    // A browser let in before: the answer is the gate's own, and its record keeps the request's
    // Cookie field, which the request log must still not show (see the last test).
    const answer = await exchange([
      `GET /_tunnel-gate/${SECRET}/account?tab=2 HTTP/1.1`,
      'Sec-Fetch-Mode: navigate',
      `Cookie: ${COOKIE_NAME}=${COOKIE}`
    ])
    expect(answer).toMatch(/^HTTP\/1\.1 303 /)
    expect(answer).toMatch(/\r\nLocation: \/account\?tab=2\r\n/)
    expect(answer).toContain(
      `\r\nSet-Cookie: ${COOKIE_NAME}=${COOKIE}; Path=/; HttpOnly; SameSite=Lax\r\n`
    )
    expect(app.seen).toEqual([])
  })
})

describe('the request log', () => {
  it('holds neither the secret nor the gate cookie, with headers unredacted', async () => {
    tunnel.keeper.keeper.stop()
    await tunnel.keeper.done
    const text = readFileSync(join(dir, 'requests.har'), 'utf8')
    const har = await readValidHar(join(dir, 'requests.har'))
    // The browsers' requests are there, their headers in clear, the app's cookie among them.
    // The gate's redirect that lets a browser in is its own answer: in log._tunnelAnswers.
    expect(har.log._tunnelAnswers.some(entry => entry._tunnel === 'admitted')).toBe(true)
    expect(har.log.entries.some(entry => entry._tunnel === 'forwarded')).toBe(true)
    expect(text).toContain(APP_COOKIE)
    for (const value of [SECRET, BASIC, COOKIE]) expect(text).not.toContain(value)
  })
})
