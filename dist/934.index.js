"use strict";
exports.id = 934;
exports.ids = [934];
exports.modules = {

/***/ 934:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  prepareTunnel: () => (/* reexport */ prepareTunnel),
  stopSavedTunnel: () => (/* reexport */ stopSavedTunnel)
});

// EXTERNAL MODULE: ./core/errors.ts
var errors = __webpack_require__(519);
// EXTERNAL MODULE: ./core/text/describe-error.ts
var describe_error = __webpack_require__(436);
// EXTERNAL MODULE: ./core/text/printable.ts
var printable = __webpack_require__(479);
;// CONCATENATED MODULE: ./core/host.ts
const DEFAULT_TUNNEL_MAX_MINUTES = 60;

;// CONCATENATED MODULE: ./core/tunnel/end-time.ts

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

// EXTERNAL MODULE: external "node:child_process"
var external_node_child_process_ = __webpack_require__(421);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(24);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(760);
// EXTERNAL MODULE: ./core/owned-dir.ts
var owned_dir = __webpack_require__(897);
;// CONCATENATED MODULE: ./core/tunnel/identity.ts


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

;// CONCATENATED MODULE: ./core/tunnel/start-failure.ts

function describeStartFailure(outcome, lastLogLine, tempRootName, hostKeyOption = 'tunnel-host-key') {
    if (outcome.type === 'ready')
        return 'The tunnel started.';
    const detail = (0,printable/* printable */.g$)(outcome.detail, 400);
    if (outcome.type === 'died') {
        return `The tunnel did not start: ${detail}. The last line of its log: ${(0,printable/* printable */.g$)(lastLogLine, 300)}. Please report this if it recurs.`;
    }
    switch (outcome.cause) {
        case 'host-key':
            return `The tunnel did not start: ${detail}, so the connection was left before the token was sent. If the server changed its key, update ${hostKeyOption}; if not, something between the runner and the server may be intercepting the connection.`;
        case 'auth':
            return `The tunnel did not start: ${detail}. The credential may have been revoked or have expired already; run the job again, and check tunnel-host and tunnel-port if they are overridden.`;
        case 'forward':
            return `The tunnel did not start: ${detail}. The name may be taken by another tunnel of this user, or the server limits how many forwards one tunnel user holds. Choose another name in expose, or expose fewer entries.`;
        case 'timeout':
            return `The tunnel did not start: ${detail}. Check that the runner can reach the tunnel server, or raise timeout-seconds and max-attempts.`;
        case 'connect':
            return `The tunnel did not start: could not connect to the tunnel server (${detail}). Check tunnel-host and tunnel-port, and that the runner may open outgoing SSH connections.`;
        case 'record':
            return `The tunnel did not start: ${detail}; without it, the tunnel could not be stopped cleanly when the job ends, nor say what it did. Free some space in ${tempRootName} (or make it writable) and run the job again.`;
    }
}

// EXTERNAL MODULE: ./core/tunnel/protocol.ts
var protocol = __webpack_require__(557);
;// CONCATENATED MODULE: ./core/tunnel/tunnel-dir.ts




function removeTunnelDir(dir, dirId) {
    if (dirId !== undefined) {
        const check = (0,owned_dir/* checkOwnDirectory */.Ih)(dir, dirId);
        if (!check.ours)
            return check.missing ? undefined : check.reason;
    }
    const { logPath, statsPath, stopPath } = (0,protocol/* tunnelFiles */.yJ)(dir);
    try {
        for (const file of [logPath, statsPath, `${statsPath}.tmp`, stopPath]) {
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

;// CONCATENATED MODULE: ./core/tunnel/launch.ts









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
                ready = true;
                return { pid, dir, ...paths, fingerprint: outcome.fingerprint };
            }
            await killAndWait(launched);
            const lastLine = lastLogLine(dir);
            removeTunnelDir(dir, dirId);
            throw new errors/* ExplainedError */.h(describeStartFailure(outcome, lastLine, options.tempRootName, config.hostKeyOptionName));
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
function killAndWait(child) {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) {
        return Promise.resolve();
    }
    return new Promise(resolve => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
    });
}

// EXTERNAL MODULE: ./core/tunnel/saved-tunnel.ts + 1 modules
var saved_tunnel = __webpack_require__(462);
;// CONCATENATED MODULE: ./core/tunnel/stop.ts





async function stopTunnel(saved, options = {}) {
    const { graceMs = protocol/* STOP_GRACE_MS */.Ts, now = Date.now, sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms)), lookUp = lookUpProcess, signal = (pid, name) => process.kill(pid, name) } = options;
    const files = (0,protocol/* tunnelFiles */.yJ)(saved.dir);
    const dir = options.dirRefused === undefined
        ? (0,owned_dir/* checkOwnDirectory */.Ih)(saved.dir, saved.dirId)
        : { ours: false, missing: false, reason: options.dirRefused };
    const readRecord = () => (dir.ours ? readStats(files.statsPath, saved.pid) : undefined);
    const before = readRecord();
    const look = lookUp(saved.pid);
    const gone = () => ({
        state: 'gone',
        ...(before && { stats: before }),
        killed: false,
        ...(saved.started && { died: describeEnd(before, dir.ours ? saved.dir : undefined) })
    });
    if (look.state === 'gone')
        return gone();
    if (look.state === 'unknown' || saved.startTime === undefined) {
        const reason = look.state === 'unknown' ? look.reason : 'main could not read its start time';
        return askWithoutProof(reason);
    }
    const startTime = saved.startTime;
    const isOurs = () => isKeeper(lookUp(saved.pid), startTime, saved.dir);
    if (!isKeeper(look, startTime, saved.dir))
        return gone();
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
        ...(!dir.ours && { recordMissing: dir.reason })
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
            return { state: 'gone', killed: false };
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

// EXTERNAL MODULE: ./core/tunnel/urls.ts
var tunnel_urls = __webpack_require__(95);
;// CONCATENATED MODULE: ./core/tunnel/open.ts









function prepareTunnel(tunnel, host) {
    let keeper;
    const launch = host.tunnelProcess();
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
    return {
        open: (login, settings, writes) => openTunnel(login, settings, tunnel, keeper, writes, host, launch.ends),
        stopUnused: async () => {
            await keeper.stopUnused();
            if (!keeper.ready)
                (0,saved_tunnel/* clearTunnel */.eO)(host.state);
        },
        close: async () => {
            const saved = keeper.saved;
            if (!keeper.ready || saved === undefined)
                return;
            const stopped = await stopTunnel({ ...saved, started: true });
            if (stopped.state === 'alive')
                return;
            removeTunnelDir(saved.dir, saved.dirId);
            (0,saved_tunnel/* clearTunnel */.eO)(host.state);
        }
    };
}
async function openTunnel(login, settings, tunnel, keeper, writes, { log, state, clock }, ends) {
    const urls = (0,tunnel_urls/* urlsFor */.s2)(tunnel, (0,tunnel_urls/* targetOf */.$r)(login), settings.optionLabel);
    const names = tunnel.entries.map(e => `${e.name} (${e.host}:${e.port})`).join(', ');
    log.info(`Opening the tunnel to ${login.host}:${login.port} for ${names}`);
    const hostKeyOption = settings.optionLabel('tunnel-host-key');
    const end = keeperEnd(ends, clock.now(), login.expiresAt);
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
        protect: tunnel.protect,
        proveUrl: tunnel.proveUrl,
        ...(login.expiresAt && { expiresAt: login.expiresAt }),
        attemptTimeoutMs: settings.http.timeoutSeconds * 1000,
        maxAttempts: settings.http.maxAttempts,
        hostKeyOptionName: hostKeyOption,
        ...end
    });
    if (keeper.saved)
        (0,saved_tunnel/* saveTunnel */.Y_)(state, { ...keeper.saved, started: true });
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
    const first = Object.values(urls)[0];
    writes.outputs.url = first;
    writes.outputs.urls = JSON.stringify(urls);
    if (settings.exportEnv)
        writes.variables[`${settings.envPrefix}_TUNNEL_URL`] = first;
    writes.summary.push({
        heading: 'Tunnel URLs',
        columns: ['Name', 'URL'],
        rows: Object.entries(urls)
    });
}

;// CONCATENATED MODULE: ./core/tunnel/stats-line.ts
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

;// CONCATENATED MODULE: ./core/tunnel/stop-saved.ts





async function stopSavedTunnel({ saved, dirRefused }, { tempRootName, log, clock }, options = {}) {
    let result;
    try {
        result = await stopTunnel(saved, { ...options, ...(dirRefused && { dirRefused }) });
    }
    catch (error) {
        log.warning(`Could not stop the tunnel process ${saved.pid}: ${(0,describe_error/* describeUnexpected */.V)(error)}. If the tunnel URL still answers, end the process by hand.`);
        return { outcome: { status: 'alive' } };
    }
    report(result, saved, dirRefused !== undefined, { tempRootName, log, clock });
    if (dirRefused !== undefined) {
        log.warning(`The tunnel's folder ${(0,printable/* printablePath */.Vj)(saved.dir)} was left as it is: ${dirRefused} (${tempRootName}), so nothing in it was read or removed. ` +
            `Check whether the runner gives each step its own ${tempRootName}; delete the folder by hand if it stays.`);
        return { outcome: { status: result.state }, untidied: saved.dir };
    }
    if (result.state === 'alive')
        return { outcome: { status: 'alive' } };
    const refused = removeTunnelDir(saved.dir, saved.dirId);
    if (refused === undefined)
        return { outcome: { status: result.state } };
    log.warning(`The tunnel's folder ${(0,printable/* printablePath */.Vj)(saved.dir)} was not removed: ${(0,printable/* printable */.g$)(refused, 200)}. Nothing runs in it; delete it by hand.`);
    return { outcome: { status: result.state }, untidied: saved.dir };
}
function report(result, { pid, dir }, dirRefused, { tempRootName, log, clock }) {
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
    if (result.stats) {
        const endedAt = result.stats.endedAt ? Date.parse(result.stats.endedAt) : clock.now();
        log.info(formatStatsLine(result.stats, endedAt));
    }
}

;// CONCATENATED MODULE: ./core/tunnel/on-demand.ts




/***/ })

};
;