"use strict";
exports.id = 522;
exports.ids = [522];
exports.modules = {

/***/ 522:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  bundledKeeper: () => (/* binding */ bundledKeeper),
  closeTunnel: () => (/* binding */ closeTunnel),
  prepareTunnel: () => (/* binding */ prepareTunnel),
  urlsFor: () => (/* binding */ urlsFor)
});

// EXTERNAL MODULE: ../node_modules/@actions/core/lib/core.js + 12 modules
var core = __webpack_require__(391);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(760);
// EXTERNAL MODULE: ./errors.ts
var errors = __webpack_require__(169);
// EXTERNAL MODULE: ./failures.ts
var failures = __webpack_require__(577);
// EXTERNAL MODULE: ./publish.ts
var publish = __webpack_require__(779);
// EXTERNAL MODULE: ./state.ts
var state = __webpack_require__(877);
// EXTERNAL MODULE: ./tunnel/expose.ts
var expose = __webpack_require__(515);
// EXTERNAL MODULE: ./tunnel/files.ts
var tunnel_files = __webpack_require__(384);
// EXTERNAL MODULE: external "node:child_process"
var external_node_child_process_ = __webpack_require__(421);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(24);
;// CONCATENATED MODULE: ./tunnel/process.ts





const KEPT_VARIABLES = new Set([
    'PATH',
    'HOME',
    'USERPROFILE',
    'TEMP',
    'TMP',
    'TMPDIR',
    'SYSTEMROOT',
    'WINDIR',
    'LANG',
    'RUNNER_TRACKING_ID'
]);
function keeperEnvironment(env) {
    const kept = {};
    for (const [name, value] of Object.entries(env)) {
        if (value !== undefined && KEPT_VARIABLES.has(name.toUpperCase()))
            kept[name] = value;
    }
    return kept;
}
const KEEPER_NODE_FLAGS = ['--max-semi-space-size=1', '--expose-gc'];
const BETWEEN_ATTEMPTS_MS = 30_000 * 1.25 + 1_000;
function readyWaitMs(attemptTimeoutMs, maxAttempts) {
    return maxAttempts * attemptTimeoutMs + (maxAttempts - 1) * BETWEEN_ATTEMPTS_MS + 5_000;
}
function launchKeeper(options) {
    const dir = (0,external_node_fs_.mkdtempSync)((0,external_node_path_.join)(options.runnerTemp, tunnel_files/* TUNNEL_DIR_PREFIX */.SS));
    const paths = (0,tunnel_files/* tunnelFiles */.yJ)(dir);
    const log = (0,external_node_fs_.openSync)(paths.logPath, 'a');
    let child;
    try {
        child = (0,external_node_child_process_.spawn)(process.execPath, [...KEEPER_NODE_FLAGS, ...(options.execArgv ?? []), options.keeperPath], {
            detached: true,
            windowsHide: true,
            stdio: ['ignore', log, log, 'ipc'],
            env: keeperEnvironment(process.env)
        });
    }
    catch (error) {
        (0,external_node_fs_.rmSync)(dir, { recursive: true, force: true });
        throw error;
    }
    finally {
        (0,external_node_fs_.closeSync)(log);
    }
    const launched = child;
    const ended = new Promise(resolve => {
        launched.on('error', error => resolve({ type: 'died', detail: error.message }));
        launched.once('exit', (code, signal) => resolve({
            type: 'died',
            detail: `the tunnel process exited before it was ready (${signal ?? `exit code ${code}`})`
        }));
    });
    let used = false;
    return {
        pid: launched.pid,
        async start(config) {
            if (used)
                throw new Error('this tunnel process was already started or abandoned');
            used = true;
            const waitMs = readyWaitMs(config.attemptTimeoutMs, config.maxAttempts);
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
                    if (launched.connected)
                        launched.send({ ...config, ...paths });
                })
            ]);
            clearTimeout(timer);
            const pid = launched.pid;
            if (outcome.type === 'ready' && pid !== undefined) {
                launched.removeAllListeners();
                launched.disconnect();
                launched.unref();
                return { pid, dir, ...paths, fingerprint: outcome.fingerprint };
            }
            await killAndWait(launched);
            throw new errors/* ActionError */.l(describeStartFailure(outcome, paths.logPath));
        },
        async abandon() {
            if (used)
                return;
            used = true;
            await killAndWait(launched);
            (0,external_node_fs_.rmSync)(dir, { recursive: true, force: true });
        }
    };
}
function startTunnel(options) {
    return launchKeeper(options).start(options.config);
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
function describeStartFailure(outcome, logPath) {
    if (outcome.type === 'ready')
        return 'The tunnel started.';
    if (outcome.type === 'died') {
        return `The tunnel did not start: ${outcome.detail}. Its log is ${logPath}; please report this with the log if it recurs.`;
    }
    switch (outcome.cause) {
        case 'host-key':
            return (`The tunnel did not start: ${outcome.detail}, so the connection was left before the token was sent. ` +
                'If the server changed its key, update tunnel-host-key; if not, something between the runner and the server may be intercepting the connection.');
        case 'auth':
            return `The tunnel did not start: ${outcome.detail}. The credential may have been revoked or have expired already; run the job again, and check tunnel-host and tunnel-port if they are overridden.`;
        case 'forward':
            return (`The tunnel did not start: ${outcome.detail}. The name may be taken by another tunnel of this user, ` +
                'or the server limits how many forwards one tunnel user holds. Choose another name in expose, or expose fewer entries.');
        case 'timeout':
            return `The tunnel did not start: ${outcome.detail}. Check that the runner can reach the tunnel server, or raise timeout-seconds and max-attempts.`;
        case 'connect':
            return `The tunnel did not start: could not connect to the tunnel server (${outcome.detail}). Check tunnel-host and tunnel-port, and that the runner may open outgoing SSH connections.`;
    }
}
async function stopTunnel(saved, options = {}) {
    const { graceMs = 5_000, now = Date.now, sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms)), isAlive = isProcessAlive, kill = (pid) => process.kill(pid, 'SIGKILL') } = options;
    const files = (0,tunnel_files/* tunnelFiles */.yJ)(saved.dir);
    const before = readStats(files.statsPath);
    if (before?.pid !== saved.pid) {
        return {
            killed: false,
            died: {
                at: 'an unknown time',
                reason: `it left no record of process ${saved.pid} (its last log line: ${lastLogLine(files.logPath)})`
            }
        };
    }
    if (before.endedAt !== undefined) {
        return {
            stats: before,
            killed: false,
            died: { at: before.endedAt, reason: before.endReason ?? 'unknown' }
        };
    }
    if (!isAlive(saved.pid)) {
        return {
            stats: before,
            killed: false,
            died: {
                at: `some time after ${before.updatedAt}`,
                reason: `it was ended from outside (its last log line: ${lastLogLine(files.logPath)})`
            }
        };
    }
    (0,external_node_fs_.writeFileSync)(files.stopPath, 'stop\n');
    const deadline = now() + graceMs;
    while (isAlive(saved.pid) && now() < deadline)
        await sleep(100);
    let killed = false;
    if (isAlive(saved.pid)) {
        try {
            kill(saved.pid);
            killed = true;
        }
        catch {
        }
    }
    const after = readStats(files.statsPath);
    return { ...(after && { stats: after }), killed };
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
function readStats(path) {
    try {
        return JSON.parse((0,external_node_fs_.readFileSync)(path, 'utf8'));
    }
    catch {
        return undefined;
    }
}
function lastLogLine(path) {
    if (!(0,external_node_fs_.existsSync)(path))
        return 'none';
    const lines = (0,external_node_fs_.readFileSync)(path, 'utf8').trim().split('\n');
    return lines.at(-1) || 'none';
}
function formatStatsLine(stats, endedAtMs) {
    const uptime = formatDuration(endedAtMs - Date.parse(stats.readyAt ?? stats.startedAt));
    const plural = (count, word) => `${count} ${word}${count === 1 ? '' : 's'}`;
    return (`Tunnel: up ${uptime}, ${plural(stats.reconnects, 'reconnect')}, ` +
        `${plural(stats.connections, 'connection')} served, ` +
        `${formatBytes(stats.bytesIn)} in / ${formatBytes(stats.bytesOut)} out, ` +
        `${plural(stats.localErrors, 'local connection error')}.`);
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

;// CONCATENATED MODULE: ./tunnel/steps.ts









function bundledKeeper() {
    return { keeperPath: (0,external_node_path_.join)((0,external_node_path_.dirname)(process.argv[1]), 'tunnel', 'index.cjs') };
}
function urlsFor(tunnel, login) {
    const urls = {};
    for (const entry of tunnel.entries) {
        const url = (0,expose/* formatUrl */.J1)(tunnel.urlTemplate, {
            name: entry.name,
            user: login.user,
            host: login.host,
            port: login.port
        });
        if (url === undefined) {
            throw new errors/* ActionError */.l(`Input url-template does not form a URL for "${entry.name}" with tunnel host ${login.host}: adjust url-template.`);
        }
        urls[entry.name] = url;
    }
    return urls;
}
function prepareTunnel(tunnel, launch = bundledKeeper()) {
    let keeper;
    try {
        keeper = launchKeeper({ ...launch, runnerTemp: (0,tunnel_files/* tunnelRoot */.DE)() });
    }
    catch (error) {
        throw new errors/* ActionError */.l(`Could not start the tunnel process: ${(0,failures/* describeUnexpected */.V)(error)}. ` +
            'Check that RUNNER_TEMP is writable and that the runner may start processes; no credential was requested.');
    }
    return {
        open: (login, settings) => openTunnel(login, settings, tunnel, keeper),
        abandon: () => keeper.abandon()
    };
}
async function openTunnel(login, settings, tunnel, keeper) {
    const urls = urlsFor(tunnel, login);
    const names = tunnel.entries.map(e => `${e.name} (${e.host}:${e.port})`).join(', ');
    core/* info */.pq(`Opening the tunnel to ${login.host}:${login.port} for ${names}`);
    const started = await keeper.start({
        host: login.host,
        port: login.port,
        user: login.user,
        ...(login.secret.type === 'password'
            ? { token: login.secret.token }
            : { privateKeyPath: login.secret.path }),
        entries: tunnel.entries,
        hostKeyPins: tunnel.hostKeyPins,
        ...(login.expiresAt && { expiresAt: login.expiresAt }),
        attemptTimeoutMs: settings.http.timeoutSeconds * 1000,
        maxAttempts: settings.http.maxAttempts
    });
    (0,state/* saveTunnel */.Y_)({ pid: started.pid, dir: started.dir });
    if (tunnel.hostKeyPins.length === 0) {
        core/* notice */.lm(`The tunnel server's host key is ${started.fingerprint}; it was accepted because tunnel-host-key is empty. ` +
            `To refuse any other key, set tunnel-host-key: ${started.fingerprint}`);
    }
    for (const [name, url] of Object.entries(urls))
        core/* info */.pq(`Exposed ${name}: ${url}`);
    core/* info */.pq(`The tunnel runs until the job ends (process ${started.pid}, log ${started.logPath}).`);
    if (login.kind === 'free') {
        core/* info */.pq('The credential is free, so the tunnel ends when the credential does: after 5 minutes (limits.max_uptime_minutes)' +
            `${login.expiresAt ? `, at ${login.expiresAt}` : ''}.`);
    }
    const first = Object.values(urls)[0];
    core/* setOutput */.uH('url', first);
    core/* setOutput */.uH('urls', JSON.stringify(urls));
    if (settings.exportEnv)
        core/* exportVariable */.dN(`${settings.envPrefix}_TUNNEL_URL`, first);
    try {
        (0,publish/* appendSummaryTable */.dy)('Tunnel URLs', ['Name', 'URL'], Object.entries(urls));
    }
    catch (error) {
        core/* warning */.$e(`Could not write the tunnel URLs to the job summary: ${(0,failures/* describeUnexpected */.V)(error)}`);
    }
}
async function closeTunnel(options = {}) {
    const saved = (0,state/* loadTunnel */.Lc)();
    if (saved === undefined)
        return;
    try {
        const result = await stopTunnel(saved, options);
        if (result.died) {
            core/* warning */.$e(`The tunnel process ended during the job, at ${result.died.at}: ${result.died.reason}. Its log is ${(0,tunnel_files/* tunnelFiles */.yJ)(saved.dir).logPath}.`);
        }
        if (result.killed) {
            core/* warning */.$e(`The tunnel process ${saved.pid} did not stop within 5 s of being asked, so it was killed.`);
        }
        if (result.stats) {
            const endedAt = result.stats.endedAt ? Date.parse(result.stats.endedAt) : Date.now();
            core/* info */.pq(formatStatsLine(result.stats, endedAt));
        }
    }
    catch (error) {
        core/* warning */.$e(`Could not stop the tunnel process ${saved.pid}: ${(0,failures/* describeUnexpected */.V)(error)}`);
    }
}


/***/ })

};
;