"use strict";
exports.id = 739;
exports.ids = [739];
exports.modules = {

/***/ 739:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  prepareTunnel: () => (/* reexport */ prepareTunnel),
  stopSavedTunnel: () => (/* reexport */ stopSavedTunnel)
});

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(598);
// EXTERNAL MODULE: ./core/errors.ts
var errors = __webpack_require__(519);
// EXTERNAL MODULE: ./core/text/describe-error.ts
var describe_error = __webpack_require__(436);
// EXTERNAL MODULE: ./core/text/printable.ts
var printable = __webpack_require__(479);
// EXTERNAL MODULE: external "node:net"
var external_node_net_ = __webpack_require__(30);
;// CONCATENATED MODULE: ./core/tunnel/main/app-check.ts

const CONNECT_TIMEOUT_MS = 1_000;
async function appsNotListening(entries, timeoutMs = CONNECT_TIMEOUT_MS) {
    const results = await Promise.all(entries.map(async (entry) => ({ entry, why: await tryConnect(entry, timeoutMs) })));
    return results.filter((r) => r.why !== undefined);
}
function appWarning({ entry, why }, label) {
    const address = entry.host.includes(':')
        ? `[${entry.host}]:${entry.port}`
        : `${entry.host}:${entry.port}`;
    return (`Nothing answers at ${address} for "${entry.name}" yet (${why}): until the app listens there, ` +
        `its URL gets 502 from the tunnel. Start the app before this step, or check the address in ${label('expose')}.`);
}
function tryConnect({ host, port }, timeoutMs) {
    return new Promise(resolve => {
        const socket = (0,external_node_net_.connect)({ host, port });
        const done = (why) => {
            clearTimeout(timer);
            socket.destroy();
            resolve(why);
        };
        const timer = setTimeout(() => done(`no connection within ${timeoutMs} ms`), timeoutMs);
        socket.once('connect', () => done(undefined));
        socket.once('error', (error) => done(error.code === 'ECONNREFUSED' ? 'connection refused' : (error.code ?? 'connection failed')));
    });
}

;// CONCATENATED MODULE: ./core/host.ts
const DEFAULT_TUNNEL_MAX_MINUTES = 60;

;// CONCATENATED MODULE: ./core/tunnel/main/end-time.ts

const MINUTE_MS = 60_000;
function keeperEnd(ends, startMs, expiresAt) {
    if (ends === undefined)
        return {};
    const expiry = expiresAt ? Date.parse(expiresAt) : NaN;
    const expiryMs = Number.isFinite(expiry) ? expiry : Infinity;
    const longest = ends.maxMinutes !== undefined
        ? startMs + ends.maxMinutes * MINUTE_MS
        : expiryMs === Infinity
            ? startMs + DEFAULT_TUNNEL_MAX_MINUTES * MINUTE_MS
            : Infinity;
    return {
        endAt: new Date(Math.min(longest, expiryMs)).toISOString(),
        ...(ends.watchPid !== undefined && { watchPid: ends.watchPid })
    };
}

// EXTERNAL MODULE: ./core/tunnel/protocol.ts
var protocol = __webpack_require__(557);
;// CONCATENATED MODULE: ./core/tunnel/main/gate-secret.ts


const GATE_USER = 'tunnel';
function makeGateSecret() {
    return (0,external_node_crypto_.randomBytes)(32).toString('base64url');
}
function gateMasks(secret) {
    return [secret, Buffer.from(`${GATE_USER}:${secret}`).toString('base64'), (0,protocol/* gateCookieValue */.hc)(secret)];
}
function gateOutputs(secret, urls) {
    const entries = Object.entries(urls);
    return {
        'protect-secret': secret,
        'protect-header': `${protocol/* GATE_HEADER */.Wh}: ${secret}`,
        'protect-urls': JSON.stringify(Object.fromEntries(entries.map(([name, url]) => [name, withUserInfo(url, secret)]))),
        'protect-webhook-urls': JSON.stringify(Object.fromEntries(entries.map(([name, url]) => [
            name,
            `${withoutTrailingSlash(url)}${protocol/* GATE_PATH_PREFIX */.zN}${secret}`
        ])))
    };
}
function withoutTrailingSlash(url) {
    return url.replace(/\/+$/, '');
}
function withUserInfo(url, secret) {
    const start = /^https?:\/\/(?:[^/?#\\]*@)?/i.exec(url);
    if (start === null) {
        const parsed = new URL(url);
        parsed.username = GATE_USER;
        parsed.password = secret;
        return parsed.href;
    }
    const scheme = start[0].slice(0, start[0].indexOf('//') + 2);
    return `${scheme}${GATE_USER}:${secret}@${url.slice(start[0].length)}`;
}
function gateSummaryRow(protect, label, { variable, outputsName } = {}) {
    const refused = 'On: a request without the per-run secret gets 401 and never reaches the app.';
    const inVariable = variable === undefined
        ? ''
        : ` The secret is in ${variable}, e.g. curl -u "${GATE_USER}:$${variable}" URL.`;
    const inOutputs = outputsName === undefined
        ? ''
        : ` Its forms are protect-secret, protect-header, protect-urls and protect-webhook-urls in ${outputsName}.`;
    const nowhere = variable === undefined && outputsName === undefined
        ? ` No later step gets the secret: set ${label('export-env')} to true to get it as a variable.`
        : '';
    return protect
        ? ['Gate', `${refused}${inVariable}${inOutputs}${nowhere}`]
        : [
            'Gate',
            `Off: anyone who has a URL reaches the app while the job runs. Set ${label('protect')} to true to let through only requests that carry a per-run secret.`
        ];
}

// EXTERNAL MODULE: external "node:child_process"
var external_node_child_process_ = __webpack_require__(421);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(24);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(760);
// EXTERNAL MODULE: ./core/owned-dir.ts
var owned_dir = __webpack_require__(659);
// EXTERNAL MODULE: ./core/version.ts
var version = __webpack_require__(830);
;// CONCATENATED MODULE: ./core/tunnel/saved/process-identity.ts


function lookUpProcess(pid) {
    if (process.platform === 'linux')
        return lookUpInProc(pid);
    if (process.platform === 'win32') {
        return { state: 'unknown', reason: 'Windows offers no start time to check the pid against' };
    }
    return lookUpWithPs(pid);
}
function lookUpInProc(pid, root = '/proc') {
    let stat;
    let cmdline;
    try {
        stat = (0,external_node_fs_.readFileSync)(`${root}/${pid}/stat`, 'utf8');
        cmdline = (0,external_node_fs_.readFileSync)(`${root}/${pid}/cmdline`, 'utf8');
    }
    catch {
        return { state: 'gone' };
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [state] = fields;
    const startTime = fields[19];
    if (state === 'Z' || state === 'X' || startTime === undefined)
        return { state: 'gone' };
    return { state: 'running', startTime, args: cmdline.split('\0').filter(Boolean).join(' ') };
}
function lookUpWithPs(pid) {
    let output;
    try {
        output = (0,external_node_child_process_.execFileSync)('ps', ['-ww', '-o', 'stat=,lstart=,args=', '-p', String(pid)], {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'ignore'],
            env: { LC_ALL: 'C' }
        });
    }
    catch (error) {
        if (error.status === 1)
            return { state: 'gone' };
        return { state: 'unknown', reason: `ps failed (${error.message.split('\n')[0]})` };
    }
    const words = output.trim().split(/\s+/);
    if (words.length < 7)
        return { state: 'gone' };
    if (words[0].startsWith('Z'))
        return { state: 'gone' };
    return {
        state: 'running',
        startTime: words.slice(1, 6).join(' '),
        args: words.slice(6).join(' ')
    };
}
function startTimeOf(pid, lookUp = lookUpProcess) {
    const look = lookUp(pid);
    return look.state === 'running' ? look.startTime : undefined;
}
function isKeeper(look, startTime, dir) {
    return look.state === 'running' && look.startTime === startTime && look.args.endsWith(` ${dir}`);
}

// EXTERNAL MODULE: ./core/tunnel/main/start-failure.ts
var start_failure = __webpack_require__(956);
;// CONCATENATED MODULE: ./core/tunnel/saved/tunnel-dir.ts




function removeTunnelDir(dir, dirId) {
    if (dirId !== undefined) {
        const check = (0,owned_dir/* checkOwnDirectory */.Ih)(dir, dirId);
        if (!check.ours)
            return check.missing ? undefined : check.reason;
    }
    const { logPath, statsPath, stopPath, spoolPath, tallyPath } = (0,protocol/* tunnelFiles */.yJ)(dir);
    const written = [logPath, stopPath, ...[statsPath, spoolPath, tallyPath].flatMap(withTmp)];
    try {
        for (const file of written) {
            (0,external_node_fs_.rmSync)(file, { force: true });
        }
        (0,external_node_fs_.rmdirSync)(dir);
        return undefined;
    }
    catch (error) {
        if (error.code === 'ENOENT')
            return undefined;
        if (error.code === 'ENOTEMPTY') {
            return 'it holds files the tunnel process did not write, so they were left as they are';
        }
        return (0,describe_error/* describeUnexpected */.V)(error);
    }
}
function withTmp(path) {
    return [path, `${path}.tmp`];
}
function lastLogLine(dir) {
    const { logPath } = (0,protocol/* tunnelFiles */.yJ)(dir);
    try {
        if (!(0,external_node_fs_.existsSync)(logPath))
            return 'none';
        return (0,external_node_fs_.readFileSync)(logPath, 'utf8').trim().split('\n').at(-1) || 'none';
    }
    catch {
        return 'none';
    }
}

;// CONCATENATED MODULE: ./core/tunnel/main/launch.ts









const KEEPER_NODE_FLAGS = ['--max-semi-space-size=1', '--expose-gc'];
function launchKeeper(options) {
    const dir = (0,external_node_fs_.mkdtempSync)((0,external_node_path_.join)(options.tempRoot, protocol/* TUNNEL_DIR_PREFIX */.SS));
    const paths = (0,protocol/* tunnelFiles */.yJ)(dir);
    let child;
    let dirId;
    try {
        dirId = (0,owned_dir/* directoryId */.Vy)(dir);
        const log = (0,external_node_fs_.openSync)(paths.logPath, 'a');
        try {
            child = (0,external_node_child_process_.spawn)(process.execPath, [...KEEPER_NODE_FLAGS, ...(options.execArgv ?? []), options.scriptPath, dir], {
                detached: true,
                windowsHide: true,
                stdio: ['ignore', log, log, 'ipc'],
                env: options.environment
            });
        }
        finally {
            (0,external_node_fs_.closeSync)(log);
        }
    }
    catch (error) {
        removeTunnelDir(dir, undefined);
        throw error;
    }
    const launched = child;
    const startTime = launched.pid === undefined ? undefined : startTimeOf(launched.pid);
    const saved = launched.pid === undefined
        ? undefined
        : {
            pid: launched.pid,
            dir,
            dirId,
            ...(startTime !== undefined && { startTime }),
            started: false
        };
    const ended = new Promise(resolve => {
        launched.on('error', error => resolve({ type: 'died', detail: error.message }));
        launched.once('exit', (code, signal) => resolve({
            type: 'died',
            detail: `the tunnel process exited before it was ready (${signal ?? `exit code ${code}`})`
        }));
    });
    let used = false;
    let ready = false;
    return {
        pid: launched.pid,
        dir,
        saved,
        get ready() {
            return ready;
        },
        async start(config) {
            if (used)
                throw new Error('this tunnel process was already started or stopped');
            used = true;
            const waitMs = (0,protocol/* readyWaitMs */.J4)(config.attemptTimeoutMs, config.maxAttempts);
            let timer;
            const outcome = await Promise.race([
                ended,
                new Promise(resolve => {
                    timer = setTimeout(() => resolve({
                        type: 'failed',
                        cause: 'timeout',
                        detail: `the tunnel process was not ready within ${Math.round(waitMs / 1000)} s`
                    }), waitMs);
                    launched.once('message', (report) => resolve(report));
                    const { logPath, statsPath, stopPath } = paths;
                    const sent = {
                        ...config,
                        logPath,
                        statsPath,
                        stopPath,
                        toolVersion: version/* ACTION_VERSION */.Y
                    };
                    if (launched.connected)
                        launched.send(sent);
                })
            ]);
            clearTimeout(timer);
            const pid = launched.pid;
            if (outcome.type === 'ready' && pid !== undefined) {
                launched.removeAllListeners();
                launched.unref();
                launched.channel?.unref();
                launched.on('error', () => undefined);
                ready = true;
                return {
                    pid,
                    dir,
                    ...paths,
                    fingerprint: outcome.fingerprint,
                    letGo: () => letGo(launched)
                };
            }
            await killAndWait(launched);
            const lastLine = lastLogLine(dir);
            removeTunnelDir(dir, dirId);
            throw new start_failure/* TunnelStartError */.N((0,start_failure/* describeStartFailure */.q)(outcome, lastLine, options.tempRootName, {
                hostKeyOption: config.hostKeyOptionName,
                exposeOption: config.exposeOptionName
            }), outcome.type === 'failed' ? outcome.cause : 'died', outcome.type === 'ready' ? '' : outcome.detail);
        },
        async stopUnused() {
            if (used)
                return;
            used = true;
            await killAndWait(launched);
            removeTunnelDir(dir, dirId);
        }
    };
}
function startTunnel(options) {
    return launchKeeper(options).start(options.config);
}
function letGo(child) {
    if (!child.connected)
        return;
    const over = { type: 'proof-over' };
    child.send(over);
    child.disconnect();
}
function killAndWait(child) {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) {
        return Promise.resolve();
    }
    return new Promise(resolve => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
    });
}

;// CONCATENATED MODULE: ./core/tunnel/saved/saved-request-log.ts



const REQUEST_LOG = 'request-log';
function requestLogFilesFor(tunnelDir, harPath) {
    const { spoolPath, tallyPath } = (0,protocol/* tunnelFiles */.yJ)(tunnelDir);
    return { harPath, spoolPath, tallyPath };
}
function saveRequestLog(state, { harPath, tallyPath }) {
    state.save(REQUEST_LOG, JSON.stringify({ harPath, tallyPath }));
}
function clearRequestLog(state) {
    state.save(REQUEST_LOG, '');
}
function loadRequestLog(state, tunnelDir, harPath) {
    const raw = state.load(REQUEST_LOG);
    if (raw === '')
        return { type: 'none' };
    const expected = { harPath, tallyPath: (0,protocol/* tunnelFiles */.yJ)(tunnelDir).tallyPath };
    let saved;
    try {
        saved = JSON.parse(raw);
    }
    catch {
        saved = null;
    }
    if (saved?.harPath === expected.harPath && saved.tallyPath === expected.tallyPath) {
        return { type: 'loaded', files: expected };
    }
    const named = typeof saved?.harPath === 'string' ? saved.harPath : raw;
    return { type: 'refused', named };
}
function discardRequestLog(tunnelDir, harPath) {
    if ((0,external_node_path_.basename)(harPath).includes((0,external_node_path_.basename)(tunnelDir)) || isEmptyOwnLog(harPath)) {
        (0,external_node_fs_.rmSync)(harPath, { force: true });
    }
}
const EMPTY_LOG_MAX_BYTES = 4096;
function isEmptyOwnLog(path) {
    try {
        const stats = (0,external_node_fs_.lstatSync)(path);
        if (!stats.isFile() || stats.size > EMPTY_LOG_MAX_BYTES)
            return false;
        const har = JSON.parse((0,external_node_fs_.readFileSync)(path, 'utf8'));
        return (har.log?.creator?.name === 'tunnel-credentials' &&
            Array.isArray(har.log.entries) &&
            har.log.entries.length === 0);
    }
    catch {
        return false;
    }
}

// EXTERNAL MODULE: ./core/tunnel/saved/saved-tunnel.ts + 1 modules
var saved_tunnel = __webpack_require__(900);
;// CONCATENATED MODULE: ./core/tunnel/post/stop.ts





async function stopTunnel(saved, options = {}) {
    const { graceMs = protocol/* STOP_GRACE_MS */.Ts, now = Date.now, sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms)), lookUp = lookUpProcess, signal = (pid, name) => process.kill(pid, name) } = options;
    const files = (0,protocol/* tunnelFiles */.yJ)(saved.dir);
    const dir = options.dirRefused === undefined
        ? (0,owned_dir/* checkOwnDirectory */.Ih)(saved.dir, saved.dirId)
        : { ours: false, missing: false, reason: options.dirRefused };
    const readRecord = () => (dir.ours ? readStats(files.statsPath, saved.pid) : undefined);
    const before = readRecord();
    const look = lookUp(saved.pid);
    const unclaimed = dir.ours && before === undefined
        ? `it holds no record of the tunnel process ${saved.pid}, so nothing proves it was that process's folder`
        : undefined;
    const gone = (folderKept = unclaimed) => ({
        state: 'gone',
        ...(before && { stats: before }),
        killed: false,
        ...(saved.started && {
            died: describeEnd(before, dir.ours && folderKept === undefined ? saved.dir : undefined)
        }),
        ...(folderKept !== undefined && { folderKept })
    });
    if (look.state === 'gone')
        return gone();
    if (look.state === 'unknown' || saved.startTime === undefined) {
        const reason = look.state === 'unknown' ? look.reason : 'main could not read its start time';
        return askWithoutProof(reason);
    }
    const startTime = saved.startTime;
    const isOurs = () => isKeeper(lookUp(saved.pid), startTime, saved.dir);
    if (!isKeeper(look, startTime, saved.dir)) {
        return gone(`the process ${saved.pid} that the saved state names is running and is not the tunnel process, so nothing proves the tunnel process is gone or that the folder was its`);
    }
    if (dir.ours)
        askByFile(files.stopPath);
    send(saved.pid, 'SIGTERM');
    const deadline = now() + graceMs;
    while (isOurs() && now() < deadline)
        await sleep(100);
    const killed = isOurs() && send(saved.pid, 'SIGKILL');
    const killDeadline = now() + 1_000;
    while (killed && isOurs() && now() < killDeadline)
        await sleep(50);
    const after = readRecord();
    return {
        state: 'stopped',
        ...(after && { stats: after }),
        killed,
        ...(after?.endedAt !== undefined && { died: describeEnd(after, saved.dir) }),
        ...(!dir.ours && { recordMissing: dir.reason }),
        ...(isOurs() && { folderKept: 'the tunnel process still ran a second after it was killed' })
    };
    function send(pid, name) {
        try {
            signal(pid, name);
            return true;
        }
        catch {
            return false;
        }
    }
    async function askWithoutProof(why) {
        if (before?.endedAt !== undefined)
            return gone();
        if (!saved.started) {
            if (dir.ours)
                askByFile(files.stopPath);
            return {
                state: 'gone',
                killed: false,
                folderKept: `${why}, so nothing proves the tunnel process ${saved.pid} is gone`
            };
        }
        if (!dir.ours) {
            return { state: 'alive', killed: false, unproven: `${why}, and its directory ${dir.reason}` };
        }
        askByFile(files.stopPath);
        const deadline = now() + graceMs;
        const heeded = () => ['stopped', 'ended'].includes(readRecord()?.state ?? '');
        while (!heeded() && now() < deadline)
            await sleep(100);
        const after = readRecord();
        return {
            state: heeded() ? 'stopped' : 'alive',
            ...(after && { stats: after }),
            killed: false,
            ...(!heeded() && { unproven: `${why}, and it did not record a stop` })
        };
    }
}
function askByFile(stopPath) {
    try {
        (0,external_node_fs_.writeFileSync)(stopPath, 'stop\n', { flag: 'wx' });
    }
    catch {
    }
}
function describeEnd(record, dir) {
    const lastLine = dir ? lastLogLine(dir) : 'none';
    if (record?.endedAt !== undefined) {
        return { at: record.endedAt, reason: record.endReason ?? 'unknown' };
    }
    if (record !== undefined) {
        return {
            at: `some time after ${record.updatedAt}`,
            reason: `it was ended from outside (its last log line: ${lastLine})`
        };
    }
    return { at: 'an unknown time', reason: `it left no record (its last log line: ${lastLine})` };
}
function readStats(path, pid) {
    try {
        const stats = JSON.parse((0,external_node_fs_.readFileSync)(path, 'utf8'));
        return stats.pid === pid ? stats : undefined;
    }
    catch {
        return undefined;
    }
}
function isProcessAlive(pid) {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (error) {
        return error.code === 'EPERM';
    }
}

// EXTERNAL MODULE: external "node:http"
var external_node_http_ = __webpack_require__(67);
// EXTERNAL MODULE: ../node_modules/@actions/http-client/lib/index.js + 3 modules
var lib = __webpack_require__(78);
// EXTERNAL MODULE: ./core/service/client.ts + 2 modules
var client = __webpack_require__(258);
// EXTERNAL MODULE: ./core/service/extra-ca.ts + 1 modules
var extra_ca = __webpack_require__(531);
// EXTERNAL MODULE: ./core/text/quote.ts
var quote = __webpack_require__(620);
;// CONCATENATED MODULE: ./core/tunnel/main/url-proof.ts










const DEFAULT_PAUSES = [1_000, 2_000, 4_000, 4_000, 4_000];
const BODY_READ_BYTES = 1024;
const BODY_SHOWN_CHARACTERS = 100;
function planProof(urls, pauses = DEFAULT_PAUSES) {
    return Object.entries(urls).flatMap(([entry, url]) => {
        const { host, protocol } = new URL(url);
        const defaultPort = protocol === 'https:' ? 443 : 80;
        return Array.from({ length: pauses.length + 1 }, () => ({
            entry,
            nonce: (0,external_node_crypto_.randomBytes)(16).toString('hex'),
            host,
            defaultPort
        }));
    });
}
async function proveUrls(options) {
    const requests = options.requests ?? planProof(options.urls, options.pauses);
    const results = await Promise.all(Object.entries(options.urls).map(([entry, url]) => proveOne(entry, url, requests.filter(request => request.entry === entry).map(request => request.nonce), options)));
    return results.filter((failure) => failure !== undefined);
}
async function proveOne(entry, url, nonces, options) {
    const pauses = options.pauses ?? DEFAULT_PAUSES;
    const windowMs = options.windowMs ?? protocol/* PROOF_WINDOW_MS */.df;
    const started = options.now();
    for (let attempt = 0;; attempt++) {
        const nonce = nonces[attempt];
        const asked = `${withoutTrailingSlash(url)}${protocol/* PROOF_PATH_PREFIX */.ok}${nonce}`;
        const answer = await ask(asked, options.attemptTimeoutMs ?? protocol/* PROOF_ATTEMPT_TIMEOUT_MS */.y4, options.ca);
        if (proves(answer, (0,protocol/* proofAnswer */.bq)(options.proofKey, entry, nonce)))
            return undefined;
        const pause = pauses[attempt];
        const late = options.now() - started + (pause ?? 0) >= windowMs;
        const noNonce = nonces[attempt + 1] === undefined;
        if (!mayStillCome(answer) || pause === undefined || late || noNonce) {
            return { entry, asked, answer };
        }
        await options.sleep(pause);
    }
}
function proves(answer, expected) {
    if (answer.kind !== 'answer' || answer.status !== 200)
        return false;
    const wanted = Buffer.from(expected);
    return answer.body.length === wanted.length && (0,external_node_crypto_.timingSafeEqual)(answer.body, wanted);
}
function mayStillCome(answer) {
    if (answer.kind !== 'answer')
        return true;
    const { status } = answer;
    return status >= 500 || [404, 408, 421, 425, 429].includes(status);
}
async function ask(url, timeoutMs, ca) {
    const http = new lib/* HttpClient */.Qq(`${version/* ACTION_NAME */.p}/${version/* ACTION_VERSION */.Y}`, [client/* unbracketIpv6Host */.BU, loopbackNames, ...(ca ? [(0,extra_ca/* trustCa */.X)(ca)] : [])], {
        socketTimeout: timeoutMs,
        allowRedirects: false,
        allowRetries: false
    });
    let timer;
    const deadline = new Promise(resolve => {
        timer = setTimeout(() => resolve({ kind: 'timeout', ms: timeoutMs }), timeoutMs);
    });
    try {
        return await Promise.race([exchange(http, url), deadline]);
    }
    finally {
        clearTimeout(timer);
        http.dispose();
    }
}
async function exchange(http, url) {
    try {
        const response = await http.get(url, { Accept: 'text/plain' });
        const { statusCode, headers } = response.message;
        const chunks = [];
        let size = 0;
        for await (const chunk of response.message) {
            chunks.push(chunk);
            size += chunk.length;
            if (size >= BODY_READ_BYTES)
                break;
        }
        response.message.destroy();
        const header = (value) => (typeof value === 'string' ? value : undefined);
        return {
            kind: 'answer',
            status: statusCode ?? 0,
            server: header(headers.server),
            location: header(headers.location),
            body: Buffer.concat(chunks).subarray(0, BODY_READ_BYTES)
        };
    }
    catch (error) {
        return { kind: 'network', detail: (0,client/* networkDetail */.c$)(error) };
    }
}
const loopbackNames = {
    prepareRequest(options) {
        if (/\.localhost\.?$/i.test(options.host ?? '') && options.agent instanceof external_node_http_.Agent) {
            options.lookup = loopback;
        }
    },
    canHandleAuthentication: () => false,
    handleAuthentication: () => Promise.reject(new Error('not used'))
};
const loopback = ((_name, options, callback) => {
    if (options.all === true)
        callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else
        callback(null, '127.0.0.1', 4);
});
function describeAnswer(answer) {
    if (answer.kind === 'timeout')
        return `no answer within ${Math.round(answer.ms / 1000)} s`;
    if (answer.kind === 'network')
        return `no answer (${answer.detail})`;
    const server = answer.server === undefined ? '' : `, Server: ${(0,printable/* cleanText */.X5)(answer.server, 60)}`;
    const location = answer.location === undefined ? '' : `, Location: ${(0,printable/* cleanText */.X5)(answer.location, 120)}`;
    const text = (0,printable/* cleanText */.X5)(answer.body.toString('utf8'), BODY_SHOWN_CHARACTERS);
    const body = text === '' ? 'an empty body' : `the body "${text}"`;
    return `status ${answer.status}${server}${location} with ${body}`;
}
function proofFailureMessage(failures, template, label, inputEmpty = false) {
    const [first, ...others] = failures;
    const more = others.length === 0
        ? ''
        : ` The URLs of ${others.map(f => `"${f.entry}"`).join(', ')} did not reach it either.`;
    return (`The public URL of "${first.entry}" does not reach this tunnel: GET ${(0,printable/* printable */.g$)(first.asked, 300)} got ${describeAnswer(first.answer)}, ` +
        `not the tunnel's own answer.${more} Check ${label('url-template')} (${inputEmpty ? `empty, so formed from the answer as ${(0,quote/* quote */.h)(template, 120)}` : (0,quote/* quote */.h)(template, 120)}): it must form the address at which your tunnel server serves each forward. ` +
        `On a runner that cannot reach its own public URL, set ${label('prove-url')} to false to skip this proof.`);
}

;// CONCATENATED MODULE: ./core/tunnel/main/url-form.ts
function urlFormFor(urlTemplate, answerUrl, tunnelHostGiven, label) {
    if (urlTemplate !== '') {
        return {
            template: urlTemplate,
            rule: `${urlTemplate}, from ${label('url-template')}`,
            fromAnswer: false
        };
    }
    const fqdn = answerUrl?.tunnelFqdn;
    const append = answerUrl?.appendUserToSubdomain;
    const domain = tunnelHostGiven
        ? {
            placeholder: '{host}',
            why: `the domain is the tunnel host, from ${label('tunnel-host')}${fqdn === undefined ? '' : ` (not the answer's tunnel_fqdn, ${fqdn})`}`
        }
        : fqdn !== undefined
            ? { placeholder: '{fqdn}', why: `the domain is the answer's tunnel_fqdn (${fqdn})` }
            : {
                placeholder: '{host}',
                why: 'the domain is the tunnel host (the answer has no tunnel_fqdn)'
            };
    const name = append === false
        ? {
            placeholder: '{name}',
            why: "the name is the entry's alone (append_user_to_subdomain: false)"
        }
        : {
            placeholder: '{name}-{user}',
            why: `the name ends with the tunnel user (${append === true ? 'append_user_to_subdomain: true' : 'the answer has no append_user_to_subdomain'})`
        };
    const template = `https://${name.placeholder}.${domain.placeholder}`;
    return {
        template,
        rule: `${template}, as ${label('url-template')} is empty: ${domain.why}, and ${name.why}`,
        fromAnswer: fqdn !== undefined || append !== undefined
    };
}

// EXTERNAL MODULE: ./core/tunnel/main/urls.ts
var main_urls = __webpack_require__(845);
;// CONCATENATED MODULE: ./core/tunnel/main/open.ts















function prepareTunnel(tunnel, host) {
    let keeper;
    const launch = host.keeperLaunch();
    const secrets = runSecrets(tunnel, host);
    try {
        keeper = launchKeeper({
            ...launch,
            tempRoot: host.tempRoot,
            tempRootName: host.tempRootName
        });
    }
    catch (error) {
        throw new errors/* ExplainedError */.h(`Could not start the tunnel process: ${(0,describe_error/* describeUnexpected */.V)(error)}. ` +
            `Check that ${host.tempRootName} is writable and that the runner may start processes; no credential was requested.`);
    }
    if (keeper.saved)
        (0,saved_tunnel/* saveTunnel */.Y_)(host.state, keeper.saved);
    const close = async () => {
        const saved = keeper.saved;
        if (!keeper.ready || saved === undefined)
            return;
        const stopped = await stopTunnel({ ...saved, started: true });
        if (stopped.state === 'alive')
            return;
        removeTunnelDir(saved.dir, saved.dirId);
        discardRequestLog(saved.dir, host.requestLogPath(saved.dir));
        clearRequestLog(host.state);
        (0,saved_tunnel/* clearTunnel */.eO)(host.state);
    };
    return {
        open: async (login, settings, writes) => {
            try {
                await openTunnel(login, settings, tunnel, keeper, writes, host, launch.ends, secrets);
            }
            catch (error) {
                await close();
                if (!keeper.ready)
                    discardRequestLog(keeper.dir, host.requestLogPath(keeper.dir));
                throw error;
            }
        },
        stopUnused: async () => {
            await keeper.stopUnused();
            if (!keeper.ready)
                (0,saved_tunnel/* clearTunnel */.eO)(host.state);
        },
        close
    };
}
function runSecrets(tunnel, host) {
    const gateSecret = tunnel.protect ? makeGateSecret() : undefined;
    const proofKey = tunnel.proveUrl ? (0,external_node_crypto_.randomBytes)(32).toString('hex') : undefined;
    const masks = [
        ...(gateSecret === undefined ? [] : gateMasks(gateSecret)),
        ...(proofKey === undefined ? [] : [proofKey])
    ];
    if (masks.length > 0)
        host.mask(masks);
    return { gateSecret, proofKey };
}
async function openTunnel(login, settings, tunnel, keeper, writes, { log, state, clock, requestLogPath, outputsName }, ends, { gateSecret, proofKey }) {
    const form = urlFormFor(tunnel.urlTemplate, login.answerUrl, settings.tunnelHost !== undefined, settings.optionLabel);
    const urls = (0,main_urls/* urlsFor */.s2)({ ...tunnel, urlTemplate: form.template }, (0,main_urls/* targetOf */.$r)(login), settings.optionLabel, tunnel.urlTemplate === '');
    if (form.fromAnswer)
        log.notice(`The public URLs are ${form.rule}.`);
    else if (tunnel.urlTemplate === '')
        log.info(`The public URLs are ${form.rule}.`);
    const names = tunnel.entries.map(e => `${e.name} (${e.host}:${e.port})`).join(', ');
    log.info(`Opening the tunnel to ${login.host}:${login.port} for ${names}`);
    const hostKeyOption = settings.optionLabel('tunnel-host-key');
    const end = keeperEnd(ends, clock.now(), login.expiresAt);
    const requestLog = tunnel.requestLog.enabled
        ? requestLogFilesFor(keeper.dir, requestLogPath(keeper.dir))
        : undefined;
    const proofRequests = proofKey === undefined ? undefined : planProof(urls);
    const started = await keeper.start({
        host: login.host,
        port: login.port,
        user: login.user,
        ...(login.secret.type === 'password'
            ? { token: login.secret.token }
            : { privateKeyPath: login.secret.path }),
        entries: tunnel.entries,
        hostKeyPins: tunnel.hostKeyPins,
        requestLog: tunnel.requestLog,
        ...(requestLog && { requestLogFiles: requestLog }),
        publicUrls: urls,
        protect: tunnel.protect,
        proveUrl: tunnel.proveUrl,
        ...(gateSecret !== undefined && { gateSecret }),
        ...(proofKey !== undefined && { proofKey, proofRequests }),
        ...(login.expiresAt && { expiresAt: login.expiresAt }),
        attemptTimeoutMs: settings.http.timeoutSeconds * 1000,
        maxAttempts: settings.http.maxAttempts,
        hostKeyOptionName: hostKeyOption,
        exposeOptionName: settings.optionLabel('expose'),
        ...end
    });
    if (keeper.saved)
        (0,saved_tunnel/* saveTunnel */.Y_)(state, { ...keeper.saved, started: true });
    if (requestLog)
        saveRequestLog(state, requestLog);
    if (tunnel.hostKeyPins.length === 0) {
        log.notice(`The tunnel server's host key is ${started.fingerprint}; it was accepted because ${hostKeyOption} is empty. ` +
            `To refuse any other key, set ${hostKeyOption}: ${started.fingerprint}`);
    }
    for (const [name, url] of Object.entries(urls))
        log.info(`Exposed ${name}: ${url}`);
    const where = `process ${started.pid}, log ${(0,printable/* printablePath */.Vj)(started.logPath)}`;
    if (end.endAt === undefined)
        log.info(`The tunnel runs until the job ends (${where}).`);
    else {
        const watched = end.watchPid === undefined ? '' : `, or once process ${end.watchPid} ends`;
        log.info(`The tunnel ends by itself at ${end.endAt} at the latest${watched}; revoking the credential stops it sooner (${where}).`);
    }
    if (login.lifetimeNote)
        log.info(login.lifetimeNote);
    const proof = proofKey === undefined ? undefined : { proofKey, requests: proofRequests };
    try {
        await proveAndCheck(tunnel.entries, { template: form.template, inputEmpty: tunnel.urlTemplate === '' }, urls, proof, settings, log, clock);
    }
    finally {
        started.letGo();
    }
    if (requestLog) {
        log.info(`Requests through the tunnel are logged in ${(0,printable/* printablePath */.Vj)(requestLog.harPath)} (HAR).`);
        writes.outputs['request-log'] = requestLog.harPath;
    }
    const first = Object.values(urls)[0];
    writes.outputs.url = first;
    writes.outputs.urls = JSON.stringify(urls);
    if (settings.exportEnv)
        writes.variables[`${settings.envPrefix}_TUNNEL_URL`] = first;
    if (gateSecret !== undefined) {
        Object.assign(writes.outputs, gateOutputs(gateSecret, urls));
        if (settings.exportEnv) {
            writes.variables[`${settings.envPrefix}_TUNNEL_GATE_SECRET`] = gateSecret;
        }
    }
    writes.summary.push({
        heading: 'Tunnel URLs',
        columns: ['Name', 'URL'],
        rows: [
            ...Object.entries(urls),
            ['URL rule', form.rule],
            gateSummaryRow(tunnel.protect, settings.optionLabel, {
                ...(settings.exportEnv && { variable: `${settings.envPrefix}_TUNNEL_GATE_SECRET` }),
                ...(outputsName !== undefined && { outputsName })
            })
        ]
    });
}
async function proveAndCheck(entries, form, urls, proof, { optionLabel: label, http }, log, clock) {
    const [failures, silentApps] = await Promise.all([
        proof === undefined
            ? []
            : proveUrls({
                ...proof,
                urls,
                now: () => clock.now(),
                sleep: ms => clock.sleep(ms),
                ...(http.ca !== undefined && { ca: http.ca })
            }),
        appsNotListening(entries)
    ]);
    for (const app of silentApps)
        log.warning(appWarning(app, label));
    if (failures.length > 0) {
        throw new errors/* ExplainedError */.h(proofFailureMessage(failures, form.template, label, form.inputEmpty));
    }
    if (proof !== undefined) {
        log.info(`Proved that the URL of ${Object.keys(urls).join(', ')} reaches this tunnel.`);
    }
}

;// CONCATENATED MODULE: ./core/tunnel/post/stats-line.ts
function formatStatsLine(stats, endedAtMs, { requests, timeline = [] } = {}) {
    const upMs = endedAtMs - Date.parse(String(stats.readyAt ?? stats.startedAt));
    const uptime = Number.isFinite(upMs) ? formatDuration(upMs) : 'for an unknown time';
    const [tunnel, ...apps] = timeline;
    const connections = requests === undefined
        ? plural(stats.connections, 'connection')
        : `${plural(stats.connections, 'connection')} (${plural(requests, 'request')}: a connection can carry several)`;
    return (`Tunnel: up ${uptime}${tunnel === undefined ? '' : `, ${tunnel}`}; ` +
        `${connections}, ${formatBytes(counted(stats.bytesIn))} in / ${formatBytes(counted(stats.bytesOut))} out, ` +
        `${plural(stats.reconnects, 'reconnect')}, ${plural(stats.localErrors, 'local connection error')}` +
        `${apps.map(app => `; ${app}`).join('')}.`);
}
function counted(value) {
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}
function plural(value, word) {
    const count = counted(value);
    return `${count} ${word}${count === 1 ? '' : 's'}`;
}
function formatDuration(ms) {
    const seconds = Math.max(0, Math.round(ms / 1000));
    const h = Math.floor(seconds / 3600);
    const m = Math.floor((seconds % 3600) / 60);
    const s = seconds % 60;
    if (h > 0)
        return `${h} h ${m} min`;
    if (m > 0)
        return `${m} min ${s} s`;
    return `${s} s`;
}
function formatBytes(bytes) {
    if (bytes < 1024)
        return `${bytes} B`;
    if (bytes < 1024 * 1024)
        return `${(bytes / 1024).toFixed(1)} KB`;
    return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(455);
;// CONCATENATED MODULE: ./core/tunnel/request-log/tally.ts



const TALLY_ROWS = 50;
const ENTRIES_COUNTED = 20;
const OTHER_ENTRIES = '(other entries)';
const KEPT_TARGET = 400;
const STATUS_CLASSES = [
    '1xx',
    '2xx',
    '3xx',
    '4xx',
    '5xx',
    'no answer',
    'refused',
    'challenged',
    'unreachable',
    'not HTTP',
    'proof'
];
function statusClassOf(record) {
    if (record.outcome === 'refused')
        return 'refused';
    if (record.outcome === 'unreachable')
        return 'unreachable';
    if (record.outcome === 'not-http')
        return 'not HTTP';
    if (record.outcome === 'proof')
        return 'proof';
    const status = record.status;
    if (status === undefined || status < 100 || status > 599)
        return 'no answer';
    return `${Math.floor(status / 100)}xx`;
}
function isFailure(statusClass) {
    return ['5xx', 'no answer', 'refused', 'unreachable'].includes(statusClass);
}
class RequestTally {
    data = {
        total: 0,
        byClass: {},
        failures: [],
        latest: []
    };
    byEntry = new Map();
    challenges = new ChallengeWatch();
    add(record) {
        const statusClass = statusClassOf(record);
        this.data.total++;
        this.data.byClass[statusClass] = (this.data.byClass[statusClass] ?? 0) + 1;
        const entry = this.byEntry.has(record.entry) || this.byEntry.size < ENTRIES_COUNTED
            ? record.entry
            : OTHER_ENTRIES;
        this.byEntry.set(entry, (this.byEntry.get(entry) ?? 0) + 1);
        const row = rowOf(record);
        const rows = isFailure(statusClass) ? this.data.failures : this.data.latest;
        rows.push(row);
        if (rows.length > TALLY_ROWS)
            rows.shift();
        if (isGateChallenge(record))
            this.challenges.refused(record, row);
        const challenge = this.challenges.answered(record);
        if (challenge !== undefined)
            this.challenged(challenge);
    }
    challenged(row) {
        const { byClass, failures, latest } = this.data;
        byClass.refused = (byClass.refused ?? 1) - 1;
        if (byClass.refused === 0)
            delete byClass.refused;
        byClass.challenged = (byClass.challenged ?? 0) + 1;
        row.challenge = true;
        const at = failures.indexOf(row);
        if (at < 0)
            return;
        failures.splice(at, 1);
        const before = latest.findIndex(other => other.startedAt > row.startedAt);
        latest.splice(before < 0 ? latest.length : before, 0, row);
        if (latest.length > TALLY_ROWS)
            latest.shift();
    }
    toJSON() {
        return { ...this.data, byEntry: Object.fromEntries(this.byEntry) };
    }
}
function rowOf(record) {
    return {
        startedAt: record.startedAt,
        entry: record.entry.slice(0, KEPT_TARGET),
        client: (record.client ?? '').slice(0, KEPT_TARGET),
        ...(record.edgeReportedClient !== undefined && {
            edgeReportedClient: record.edgeReportedClient.slice(0, KEPT_TARGET)
        }),
        method: record.method.slice(0, KEPT_TARGET),
        target: record.target.slice(0, KEPT_TARGET),
        ...(record.status === undefined ? {} : { status: record.status }),
        durationMs: record.durationMs,
        bytesIn: record.bytesIn,
        bytesOut: record.bytesOut,
        outcome: record.outcome
    };
}
async function writeTally(path, tally) {
    await writeFile(`${path}.tmp`, JSON.stringify(tally), { mode: 0o600 });
    await rename(`${path}.tmp`, path);
}
function readTally(path) {
    try {
        const data = JSON.parse((0,external_node_fs_.readFileSync)(path, 'utf8'));
        return isTallyData(data) ? data : undefined;
    }
    catch {
        return undefined;
    }
}
function isTallyData(data) {
    const candidate = data;
    return (typeof candidate === 'object' &&
        candidate !== null &&
        isCount(candidate.total) &&
        isCounts(candidate.byClass) &&
        isCounts(candidate.byEntry) &&
        isRows(candidate.failures) &&
        isRows(candidate.latest));
}
function isCount(value) {
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
function isCounts(value) {
    return (typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.values(value).every(isCount));
}
function isRows(value) {
    return (Array.isArray(value) &&
        value.every(row => typeof row === 'object' &&
            row !== null &&
            ['entry', 'client', 'method', 'target', 'outcome'].every(key => typeof row[key] === 'string') &&
            ['startedAt', 'durationMs', 'bytesIn', 'bytesOut'].every(key => typeof row[key] === 'number') &&
            (row.status === undefined || typeof row.status === 'number') &&
            (row.edgeReportedClient === undefined || typeof row.edgeReportedClient === 'string') &&
            (row.challenge === undefined || typeof row.challenge === 'boolean')));
}

;// CONCATENATED MODULE: ./core/tunnel/request-log/summary.ts


const SUMMARY_MAX_ROWS = 50;
const LATEST_RESERVED = 10;
const SUMMARY_COLUMNS = [
    'Time (UTC)',
    'Entry',
    'Client (edge-reported)',
    'Channel from',
    'Method',
    'Path',
    'Status',
    'Duration',
    'Bytes in',
    'Bytes out',
    'Tunnel'
];
const WHAT_THE_TUNNEL_DID = {
    forwarded: 'forwarded',
    refused: 'refused by the gate',
    admitted: 'let in by the gate: cookie set',
    unreachable: 'app unreachable',
    'not-http': 'not HTTP, piped',
    proof: 'answered the URL proof'
};
const CHALLENGE_TEXT = 'challenged by the gate, then admitted';
function requestSummary(tally, logPath, maxRows = SUMMARY_MAX_ROWS) {
    const heading = 'Requests through the tunnel';
    const log = (0,printable/* printablePath */.Vj)(logPath);
    if (tally.total === 0) {
        return {
            heading,
            lines: [`No request came through the tunnel; the request log is ${log}.`],
            columns: [],
            rows: []
        };
    }
    const latestShown = Math.min(tally.latest.length, LATEST_RESERVED);
    const failures = tally.failures.slice(-Math.max(0, maxRows - latestShown));
    const latest = tally.latest.slice(-Math.max(0, maxRows - failures.length)).slice(0, maxRows);
    const shown = failures.length + latest.length;
    const lines = [
        `${tally.total} ${tally.total === 1 ? 'request' : 'requests'}: ${classCounts(tally)}.`,
        `By entry: ${entryCounts(tally)}.`,
        ...((tally.byClass.challenged ?? 0) > 0
            ? [
                'Challenged: the gate answered 401 and the client sent the same request again with the secret within 10 s, as browsers do; not a failure.'
            ]
            : []),
        shown < tally.total
            ? `Showing ${shown}: the latest failures first, then the latest others.`
            : 'Failures first, then the others.',
        `The request log (HAR) is ${log}.`
    ];
    return {
        heading,
        lines,
        columns: [...SUMMARY_COLUMNS],
        rows: [...failures, ...latest].map(cellsOf)
    };
}
function requestCountsLine(tally, logPath) {
    const counts = tally.total === 0 ? '0' : `${tally.total} (${classCounts(tally)})`;
    return `Requests: ${counts}; log: ${(0,printable/* printablePath */.Vj)(logPath)}`;
}
function classCounts(tally) {
    return STATUS_CLASSES.filter(statusClass => (tally.byClass[statusClass] ?? 0) > 0)
        .map(statusClass => `${statusClass} ${tally.byClass[statusClass]}`)
        .join(', ');
}
function entryCounts(tally) {
    return Object.entries(tally.byEntry)
        .map(([entry, count]) => `${(0,printable/* printable */.g$)(entry, 40)} ${count}`)
        .join(', ');
}
function cellsOf(row) {
    return [
        timeOfDay(row.startedAt),
        (0,printable/* printable */.g$)(row.entry, 40),
        (0,printable/* printable */.g$)(row.edgeReportedClient ?? '', 60) || '-',
        (0,printable/* printable */.g$)(row.client, 60) || '-',
        (0,printable/* printable */.g$)(row.method, 16) || '-',
        (0,printable/* printable */.g$)(row.target, 120) || '-',
        row.status === undefined ? '-' : String(row.status),
        `${Math.round(row.durationMs)} ms`,
        String(row.bytesIn),
        String(row.bytesOut),
        row.challenge === true
            ? CHALLENGE_TEXT
            :
                Object.hasOwn(WHAT_THE_TUNNEL_DID, row.outcome)
                    ? WHAT_THE_TUNNEL_DID[row.outcome]
                    : (0,printable/* printable */.g$)(row.outcome, 20)
    ];
}
function timeOfDay(epochMs) {
    const time = new Date(epochMs);
    return Number.isNaN(time.getTime()) ? '-' : time.toISOString().slice(11, 23);
}

;// CONCATENATED MODULE: ./core/tunnel/post/timeline-line.ts


const APPS_NAMED = 5;
function timelineParts(timeline, endMs) {
    return [tunnelPart(timeline.down, timeline.downOmitted ?? 0, endMs), ...appParts(timeline.apps)];
}
function readTimeline(value) {
    if (!isObject(value) || !Array.isArray(value.down) || !isObject(value.apps))
        return undefined;
    const down = value.down.filter((period) => isObject(period) &&
        typeof period.from === 'string' &&
        (period.to === undefined || typeof period.to === 'string') &&
        typeof period.reason === 'string');
    const apps = [];
    for (const [name, app] of Object.entries(value.apps)) {
        if (!isObject(app) || !isDuration(app.unreachableMs) || !isDuration(app.longestMs))
            continue;
        const { unreachableMs, longestMs, firstForwardAt } = app;
        apps.push([
            name,
            { unreachableMs, longestMs, ...(typeof firstForwardAt === 'string' && { firstForwardAt }) }
        ]);
    }
    const omitted = isDuration(value.downOmitted) ? Math.floor(value.downOmitted) : 0;
    return { down, ...(omitted > 0 && { downOmitted: omitted }), apps: Object.fromEntries(apps) };
}
function tunnelPart(down, omitted, endMs) {
    const periods = down
        .map(({ from, to, reason }) => ({
        ms: (to === undefined ? endMs : Date.parse(to)) - Date.parse(from),
        reason
    }))
        .filter(period => Number.isFinite(period.ms) && period.ms >= 0);
    if (periods.length === 0)
        return omitted > 0 ? `down ${times(omitted)}` : 'never down';
    const totalMs = periods.reduce((total, period) => total + period.ms, 0);
    const longest = periods.reduce((most, period) => (period.ms > most.ms ? period : most));
    const reason = (0,printable/* printable */.g$)(longest.reason, 100);
    if (periods.length === 1 && omitted === 0)
        return `down once, ${duration(totalMs)} (${reason})`;
    const inAll = omitted > 0 ? `in the latest ${periods.length}` : 'in all';
    return `down ${times(periods.length + omitted)}, ${duration(totalMs)} ${inAll} (longest ${duration(longest.ms)}: ${reason})`;
}
function appParts(apps) {
    const unreachable = Object.entries(apps)
        .filter(([, app]) => app.unreachableMs > 0)
        .sort(([, a], [, b]) => b.unreachableMs - a.unreachableMs);
    const named = unreachable.slice(0, APPS_NAMED).map(([name, app]) => {
        const longest = Math.min(app.longestMs, app.unreachableMs);
        const time = longest >= app.unreachableMs
            ? duration(app.unreachableMs)
            : `${duration(app.unreachableMs)} in all (longest ${duration(longest)})`;
        const never = app.firstForwardAt === undefined ? ', never reached' : '';
        return `app ${(0,printable/* printable */.g$)(name, 40)} unreachable ${time}${never}`;
    });
    const more = unreachable.length - named.length;
    return more > 0 ? [...named, `${more} more ${more === 1 ? 'app' : 'apps'} unreachable`] : named;
}
function duration(ms) {
    return ms < 950 ? `${(ms / 1000).toFixed(1)} s` : formatDuration(ms);
}
function times(count) {
    return count === 1 ? 'once' : count === 2 ? 'twice' : `${count} times`;
}
function isObject(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function isDuration(value) {
    return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

;// CONCATENATED MODULE: ./core/tunnel/post/request-report.ts





function requestReport({ requestLog, stats, endMs }) {
    const summary = [];
    let countsLine;
    let requests;
    if (requestLog !== undefined) {
        const tally = readTally(requestLog.tallyPath);
        requests = tally?.total;
        if (tally === undefined) {
            countsLine = `Requests: not counted, the tunnel process left no counts; log: ${(0,printable/* printablePath */.Vj)(requestLog.harPath)}`;
            summary.push({
                heading: 'Requests through the tunnel',
                lines: [countsLine],
                columns: [],
                rows: []
            });
        }
        else {
            summary.push(requestSummary(tally, requestLog.harPath));
            countsLine = requestCountsLine(tally, requestLog.harPath);
        }
    }
    const timeline = readTimeline(stats?.timeline);
    const line = stats === undefined
        ? undefined
        : formatStatsLine(stats, endMs, {
            ...(requests !== undefined && { requests }),
            ...(timeline !== undefined && { timeline: timelineParts(timeline, endMs) })
        });
    if (line !== undefined)
        summary.push({ heading: 'Tunnel', lines: [line], columns: [], rows: [] });
    if (summary.length === 0)
        return undefined;
    return {
        summary,
        ...(countsLine !== undefined && { countsLine }),
        ...(line !== undefined && { tunnelLine: line })
    };
}

;// CONCATENATED MODULE: ./core/tunnel/post/stop-saved.ts







async function stopSavedTunnel({ saved, dirRefused }, host, options = {}) {
    const { tempRootName, log, clock } = host;
    let result;
    try {
        result = await stopTunnel(saved, { ...options, ...(dirRefused && { dirRefused }) });
    }
    catch (error) {
        log.warning(`Could not stop the tunnel process ${saved.pid}: ${(0,describe_error/* describeUnexpected */.V)(error)}. If the tunnel URL still answers, end the process by hand.`);
        return { outcome: { status: 'alive' } };
    }
    report(result, saved, dirRefused !== undefined, { tempRootName, log });
    if (dirRefused !== undefined) {
        log.warning(`The tunnel's folder ${(0,printable/* printablePath */.Vj)(saved.dir)} was left as it is: ${dirRefused} (${tempRootName}), so nothing in it was read or removed. ` +
            `Check whether the runner gives each step its own ${tempRootName}; delete the folder by hand if it stays.`);
        logStatsLine(result, clock.now(), log);
        return { outcome: { status: result.state }, untidied: saved.dir };
    }
    if (result.state === 'alive') {
        logStatsLine(result, clock.now(), log);
        return { outcome: { status: 'alive' } };
    }
    if (result.folderKept !== undefined) {
        log.warning(`The tunnel's folder ${(0,printable/* printablePath */.Vj)(saved.dir)} was left as it is, and nothing in it was read or removed: ${(0,printable/* printable */.g$)(result.folderKept, 300)}. ` +
            'Delete it by hand once no tunnel process uses it.');
        logStatsLine(result, clock.now(), log);
        return { outcome: { status: result.state }, untidied: saved.dir };
    }
    const requests = result.recordMissing === undefined ? readRequestReport(result, saved.dir, host) : undefined;
    const line = requests?.tunnelLine ?? statsLineOf(result, clock.now());
    if (line !== undefined)
        log.info(line);
    const stopped = { outcome: { status: result.state }, ...(requests && { requests }) };
    const refused = removeTunnelDir(saved.dir, saved.dirId);
    if (refused === undefined)
        return stopped;
    log.warning(`The tunnel's folder ${(0,printable/* printablePath */.Vj)(saved.dir)} was not removed: ${(0,printable/* printable */.g$)(refused, 200)}. Nothing runs in it; delete it by hand.`);
    return { ...stopped, untidied: saved.dir };
}
function readRequestReport(result, dir, { state, log, clock, requestLogPath }) {
    const requestLog = loadRequestLog(state, dir, requestLogPath(dir));
    if (requestLog.type === 'refused') {
        log.warning(`The saved state names the request log ${(0,printable/* printablePath */.Vj)(requestLog.named)}, which is not where this tool writes it, so the request counts were not read. ` +
            'If it was provisioned with other options, revoke with those; otherwise something other than this tool wrote the state.');
    }
    return requestReport({
        ...(requestLog.type === 'loaded' && { requestLog: requestLog.files }),
        ...(result.stats && { stats: result.stats }),
        endMs: endOf(result.stats, clock.now())
    });
}
function endOf(stats, nowMs) {
    const endedAt = stats?.endedAt === undefined ? NaN : Date.parse(stats.endedAt);
    return Number.isNaN(endedAt) ? nowMs : endedAt;
}
function report(result, { pid, dir }, dirRefused, { tempRootName, log }) {
    if (result.died) {
        log.warning(`The tunnel process ended during the job, at ${(0,printable/* printable */.g$)(result.died.at, 60)}: ${(0,printable/* printable */.g$)(result.died.reason, 300)}.`);
    }
    if (result.recordMissing && !dirRefused) {
        log.warning(`The tunnel process ${pid} was stopped, but its directory ${(0,printable/* printablePath */.Vj)(dir)} could not be used (${result.recordMissing}), so its log and counters are lost. ` +
            `Check whether a step of the job deletes or replaces files in ${tempRootName}.`);
    }
    if (result.unproven) {
        log.warning(`The tunnel process ${pid} was asked to stop but not made to: ${result.unproven}, so no signal was sent in case the pid now belongs to another process. ` +
            'If the tunnel URL still answers, end the process by hand; on a hosted runner the job end does it.');
    }
    if (result.killed) {
        log.warning(`The tunnel process ${pid} did not stop within 5 s of being asked, so it was killed.`);
    }
}
function statsLineOf(result, nowMs) {
    return result.stats && formatStatsLine(result.stats, endOf(result.stats, nowMs));
}
function logStatsLine(result, nowMs, log) {
    const line = statsLineOf(result, nowMs);
    if (line !== undefined)
        log.info(line);
}

;// CONCATENATED MODULE: ./core/tunnel/on-demand.ts




/***/ })

};
;