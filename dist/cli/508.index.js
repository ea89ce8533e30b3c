"use strict";
exports.id = 508;
exports.ids = [508];
exports.modules = {

/***/ 508:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  replayCommand: () => (/* binding */ replayCommand)
});

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(24);
// EXTERNAL MODULE: ./core/text/printable.ts
var printable = __webpack_require__(479);
// EXTERNAL MODULE: ./cli/arguments.ts
var cli_arguments = __webpack_require__(693);
;// CONCATENATED MODULE: ./cli/har-read.ts
const TUNNEL_OWN_OUTCOMES = new Set(['refused', 'admitted', 'unreachable', 'not-http', 'proof']);
class HarError extends Error {
}
function readHar(text) {
    let parsed;
    try {
        parsed = JSON.parse(text);
    }
    catch {
        throw new HarError('is not JSON');
    }
    const log = field(parsed, 'log');
    const entries = field(log, 'entries');
    if (!Array.isArray(entries))
        throw new HarError('has no log.entries list: it is not a HAR file');
    const answers = field(log, '_tunnelAnswers') ?? [];
    if (!Array.isArray(answers))
        throw new HarError('has a log._tunnelAnswers that is not a list');
    return inTimeOrder(entries, answers).map(({ entry, tunnelAnswer }, position) => {
        const request = readEntry(entry, position + 1);
        if (!tunnelAnswer)
            return request;
        return {
            ...request,
            tunnelAnswer,
            tunnelOutcome: tunnelOutcome(field(entry, '_tunnel')) ?? 'tunnel'
        };
    });
}
function inTimeOrder(entries, answers) {
    const time = (entry) => Date.parse(String(field(entry, 'startedDateTime')));
    const merged = [];
    let next = 0;
    for (const answer of answers) {
        while (next < entries.length && !(time(answer) < time(entries[next]))) {
            merged.push({ entry: entries[next++], tunnelAnswer: false });
        }
        merged.push({ entry: answer, tunnelAnswer: true });
    }
    for (; next < entries.length; next++)
        merged.push({ entry: entries[next], tunnelAnswer: false });
    return merged;
}
function readEntry(entry, index) {
    const request = field(entry, 'request');
    const method = field(request, 'method');
    const url = field(request, 'url');
    if (typeof method !== 'string' || typeof url !== 'string') {
        throw new HarError(`entry ${index} has no request method or url`);
    }
    const status = field(field(entry, 'response'), 'status');
    const outcome = tunnelOutcome(field(entry, '_tunnel'));
    return {
        index,
        method,
        target: targetOf(url),
        headers: headersOf(field(request, 'headers'), index),
        ...bodyOf(request, entry, index),
        ...(typeof status === 'number' && Number.isInteger(status) && { status }),
        ...(outcome !== undefined && TUNNEL_OWN_OUTCOMES.has(outcome) && { tunnelOutcome: outcome })
    };
}
function targetOf(url) {
    const withoutOrigin = url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, '');
    const target = withoutOrigin.split('#')[0];
    if (target === '')
        return '/';
    return target.startsWith('/') || target === '*' ? target : `/${target}`;
}
function headersOf(headers, index) {
    if (headers === undefined)
        return [];
    if (!Array.isArray(headers))
        throw new HarError(`entry ${index} has request headers that are not a list`);
    return headers.map(header => {
        const name = field(header, 'name');
        const value = field(header, 'value');
        if (typeof name !== 'string' || typeof value !== 'string') {
            throw new HarError(`entry ${index} has a request header without a name or value`);
        }
        return [name, value];
    });
}
function bodyOf(request, entry, index) {
    const postData = field(request, 'postData');
    const bodySize = field(request, 'bodySize');
    const declared = typeof bodySize === 'number' && bodySize > 0 ? bodySize : undefined;
    const text = field(postData, 'text');
    if (typeof text !== 'string') {
        const sizeUnknown = typeof bodySize !== 'number' || bodySize < 0;
        if (declared === undefined && !(sizeUnknown && declaresChunkedBody(request)))
            return {};
        return {
            body: {
                bytes: Buffer.alloc(0),
                incomplete: `its ${declared === undefined ? 'chunked' : `${declared}-byte`} body was not recorded (record with log-bodies)`
            }
        };
    }
    const encoding = field(postData, 'encoding');
    if (encoding !== undefined && encoding !== 'base64') {
        throw new HarError(`entry ${index} has a body in an encoding other than base64`);
    }
    const bytes = encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
    const marked = field(postData, '_truncated') === true ||
        field(request, '_truncated') === true ||
        field(field(field(entry, '_tunnel'), 'bodyTruncated'), 'request') === true;
    if (marked || (declared !== undefined && declared > bytes.length)) {
        const of = declared !== undefined ? ` of ${declared}` : '';
        return {
            body: {
                bytes,
                incomplete: `its body was cut at ${bytes.length}${of} bytes in the HAR (record with a larger log-bodies)`
            }
        };
    }
    return { body: { bytes } };
}
function declaresChunkedBody(request) {
    const headers = field(request, 'headers');
    return (Array.isArray(headers) &&
        headers.some(header => String(field(header, 'name')).toLowerCase() === 'transfer-encoding' &&
            /chunked/i.test(String(field(header, 'value')))));
}
function tunnelOutcome(value) {
    if (typeof value === 'string')
        return value;
    const outcome = field(value, 'outcome');
    return typeof outcome === 'string' ? outcome : undefined;
}
function field(value, name) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
        return undefined;
    return Object.prototype.hasOwnProperty.call(value, name)
        ? value[name]
        : undefined;
}

;// CONCATENATED MODULE: ./cli/replay-arguments.ts

const REPLAY_FLAGS = ['to', 'index', 'method', 'path', 'timeout-seconds'];
const DEFAULT_TIMEOUT_SECONDS = 30;
function parseReplayArguments(argv) {
    const files = [];
    const flags = new Map();
    for (let index = 0; index < argv.length; index++) {
        const token = argv[index];
        if (!token.startsWith('--')) {
            files.push(token);
            continue;
        }
        const equals = token.indexOf('=');
        const name = (equals === -1 ? token : token.slice(0, equals)).slice(2);
        const flag = REPLAY_FLAGS.find(known => known === name);
        if (flag === undefined) {
            const shown = /^[A-Za-z][A-Za-z0-9-]{0,39}$/.test(name) ? `"--${name}"` : 'An argument';
            throw new cli_arguments/* UsageError */.eb(`${shown} is not an option of replay: use --to, --index, --method, --path or --timeout-seconds.`);
        }
        if (flags.has(flag))
            throw new cli_arguments/* UsageError */.eb(`--${flag} is given twice.`);
        const value = equals === -1 ? argv[++index] : token.slice(equals + 1);
        if (value === undefined || (equals === -1 && value.startsWith('--'))) {
            throw new cli_arguments/* UsageError */.eb(`--${flag} needs a value.`);
        }
        flags.set(flag, value);
    }
    if (files.length !== 1) {
        throw new cli_arguments/* UsageError */.eb('replay takes one HAR file: replay FILE.har --to http://127.0.0.1:3000');
    }
    const to = flags.get('to');
    if (to === undefined) {
        throw new cli_arguments/* UsageError */.eb('replay needs --to, the app to send to, e.g. --to http://127.0.0.1:3000');
    }
    return {
        harFile: files[0],
        to: parseTo(to),
        ...optional('indexes', flags.get('index'), parseIndexes),
        ...optional('methods', flags.get('method'), parseMethods),
        ...optional('pathPrefix', flags.get('path'), parsePathPrefix),
        timeoutMs: parseTimeout(flags.get('timeout-seconds')) * 1000
    };
}
function optional(key, value, parse) {
    return value === undefined ? {} : { [key]: parse(value) };
}
function parseTo(value) {
    let url;
    try {
        url = new URL(value);
    }
    catch {
        throw new cli_arguments/* UsageError */.eb('--to is not a URL: give the app as http://HOST:PORT, e.g. http://127.0.0.1:3000');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new cli_arguments/* UsageError */.eb('--to must be an http:// or https:// URL, e.g. http://127.0.0.1:3000');
    }
    if (url.username !== '' || url.password !== '') {
        throw new cli_arguments/* UsageError */.eb('--to must not hold a user or password: a command line is visible to other processes.');
    }
    if (url.search !== '' || url.hash !== '' || value.includes('?') || value.includes('#')) {
        throw new cli_arguments/* UsageError */.eb('--to must not hold a query or fragment: the recorded query is sent.');
    }
    return url;
}
function parseIndexes(value) {
    const indexes = new Set();
    for (const part of value.split(',')) {
        const range = /^(\d{1,7})(?:-(\d{1,7}))?$/.exec(part.trim());
        const first = Number(range?.[1]);
        const last = range?.[2] === undefined ? first : Number(range[2]);
        if (range === null || first < 1 || last < first) {
            throw new cli_arguments/* UsageError */.eb('--index takes entry numbers from 1 and ranges, e.g. --index 1,3-5');
        }
        for (let index = first; index <= last; index++)
            indexes.add(index);
    }
    return indexes;
}
function parseMethods(value) {
    const methods = value.split(',').map(method => method.trim().toUpperCase());
    if (methods.some(method => !/^[A-Z][A-Z-]{0,19}$/.test(method))) {
        throw new cli_arguments/* UsageError */.eb('--method takes HTTP methods, e.g. --method POST or --method POST,PUT');
    }
    return new Set(methods);
}
function parsePathPrefix(value) {
    if (!value.startsWith('/')) {
        throw new cli_arguments/* UsageError */.eb('--path takes the start of a path, beginning with "/", e.g. --path /webhooks/');
    }
    return value;
}
function parseTimeout(value) {
    if (value === undefined)
        return DEFAULT_TIMEOUT_SECONDS;
    const seconds = /^\d{1,4}(\.\d{1,3})?$/.test(value) ? Number(value) : NaN;
    if (!(seconds > 0 && seconds <= 3600)) {
        throw new cli_arguments/* UsageError */.eb('--timeout-seconds takes a number of seconds above 0, at most 3600.');
    }
    return seconds;
}

// EXTERNAL MODULE: external "node:http"
var external_node_http_ = __webpack_require__(67);
// EXTERNAL MODULE: external "node:https"
var external_node_https_ = __webpack_require__(708);
// EXTERNAL MODULE: external "node:net"
var external_node_net_ = __webpack_require__(30);
;// CONCATENATED MODULE: ./cli/replay-send.ts



const BODY_GRACE_MS = 2000;
function sendRequest(to, outgoing, timeoutMs) {
    const send = to.protocol === 'https:' ? external_node_https_.request : external_node_http_.request;
    const hostname = to.hostname.replace(/^\[|\]$/g, '');
    let request;
    try {
        request = send({
            protocol: to.protocol,
            hostname,
            port: to.port === '' ? undefined : Number(to.port),
            method: outgoing.method,
            path: outgoing.target,
            headers: outgoing.headers.flat(),
            setHost: false,
            ...(to.protocol === 'https:' && (0,external_node_net_.isIP)(hostname) === 0 && { servername: hostname }),
            agent: false
        });
    }
    catch (error) {
        return Promise.resolve({ type: 'unsendable', cause: codeOf(error) });
    }
    return new Promise(resolve => {
        let settled = false;
        const finish = (result) => {
            if (settled)
                return;
            settled = true;
            clearTimeout(timer);
            request.destroy();
            resolve(result);
        };
        const timer = setTimeout(() => finish({ type: 'failed', cause: `no answer within ${timeoutMs / 1000} s` }), timeoutMs);
        request.on('response', (response) => {
            const result = { type: 'answered', status: response.statusCode ?? 0 };
            clearTimeout(timer);
            const grace = setTimeout(() => finish(result), Math.min(BODY_GRACE_MS, timeoutMs));
            response.on('end', () => (clearTimeout(grace), finish(result)));
            response.on('error', () => (clearTimeout(grace), finish(result)));
            response.resume();
        });
        request.on('error', error => {
            const code = codeOf(error);
            finish(code === 'ECONNREFUSED' ? { type: 'refused' } : { type: 'failed', cause: code });
        });
        request.end(outgoing.body);
    });
}
function codeOf(error) {
    const code = error.code;
    return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : 'an error';
}

;// CONCATENATED MODULE: ./cli/commands/replay.ts






const MAX_HAR_BYTES = 512 * 1024 * 1024;
const NOT_FORWARDED = new Set([
    'connection',
    'keep-alive',
    'te',
    'trailer',
    'transfer-encoding',
    'upgrade',
    'content-length'
]);
const REDACTED = 'REDACTED';
const TUNNEL_OUTCOMES = {
    refused: "refused by the tunnel's gate",
    admitted: "the gate's own redirect that sets its cookie",
    unreachable: 'the app was not listening',
    'not-http': 'not HTTP',
    proof: "the tunnel's own proof of the URL"
};
const REDACTED_NOTE = 'Sent redacted: the app did not get these requests as recorded (a signature over the URL or a ' +
    'header cannot match); record with log-headers: unredacted to replay them whole.';
async function replayCommand(args, terminal) {
    const options = parseReplayArguments(args);
    const all = loadHar(options.harFile);
    const selected = replay_select(all, options);
    const file = (0,printable/* printablePath */.Vj)(options.harFile);
    if (all.length === 0)
        return (terminal.stdout(`${file} holds no requests.`), 0);
    if (selected.length === 0) {
        terminal.stderr(`Error: none of the ${all.length} requests in ${file} matches --index, --method and --path.`);
        return 1;
    }
    terminal.stdout(`Replaying ${selected.length} of ${all.length} requests from ${file} to ${(0,printable/* printable */.g$)(options.to.href)}`);
    const counts = { ok: 0, redacted: 0, diff: 0, skipped: 0, notReplayed: 0 };
    for (const recorded of selected) {
        const head = `#${recorded.index} ${(0,printable/* printable */.g$)(recorded.method || '-', 20)} ${(0,printable/* printable */.g$)(recorded.target || '-')}`;
        if (recorded.tunnelOutcome !== undefined) {
            counts.skipped++;
            terminal.stdout(`${head}  skipped: ${skipReason(recorded)}, it never reached the app`);
            continue;
        }
        const { outgoing, withheld, sentRedacted } = outgoingFor(recorded, options.to);
        const cannot = whyNotReplayable(recorded, outgoing.target);
        if (cannot !== undefined) {
            counts.notReplayed++;
            terminal.stdout(`${head}  NOT REPLAYED: ${cannot}`);
            continue;
        }
        const result = await sendRequest(options.to, outgoing, options.timeoutMs);
        if (result.type === 'refused') {
            terminal.stderr(`Error: nothing accepts connections at ${(0,printable/* printable */.g$)(options.to.host)} (--to): start the app, or give its address with --to.`);
            return 1;
        }
        if (result.type === 'unsendable') {
            counts.notReplayed++;
            terminal.stdout(`${head}  NOT REPLAYED: Node cannot send it as recorded (${result.cause})`);
            continue;
        }
        const replayed = result.type === 'answered' ? result.status : 0;
        const same = statusClass(replayed) === statusClass(recorded.status ?? 0);
        const redacted = withheld.length > 0 || sentRedacted.length > 0;
        const verdict = !same ? 'diff' : redacted ? 'redacted' : 'ok';
        counts[verdict]++;
        const shown = result.type === 'answered' ? String(result.status) : `no answer (${result.cause})`;
        const notes = [
            ...(withheld.length > 0 ? [`not sent, redacted: ${withheld.join(', ')}`] : []),
            ...(sentRedacted.length > 0 ? [`sent with REDACTED in it: ${sentRedacted.join(', ')}`] : [])
        ];
        const note = notes.length > 0 ? `  (${(0,printable/* printable */.g$)(notes.join('; '))})` : '';
        const word = { ok: 'OK', redacted: 'SENT REDACTED', diff: 'DIFF' }[verdict];
        terminal.stdout(`${head}  ${recorded.status || '-'} -> ${shown}  ${word}${note}`);
    }
    return report(terminal, counts);
}
function skipReason(recorded) {
    const outcome = recorded.tunnelOutcome ?? '';
    if (Object.hasOwn(TUNNEL_OUTCOMES, outcome))
        return TUNNEL_OUTCOMES[outcome];
    return `the tunnel's own answer (${(0,printable/* printable */.g$)(outcome, 20)})`;
}
function report(terminal, counts) {
    const { ok, redacted, diff, skipped, notReplayed } = counts;
    terminal.stdout(`Replayed ${ok + redacted + diff}: ${ok} OK, ${redacted} sent redacted, ${diff} DIFF; ${notReplayed} not replayed; ${skipped} skipped (never reached the app).`);
    if (redacted > 0)
        terminal.stdout(REDACTED_NOTE);
    if (diff === 0 && notReplayed === 0)
        return 0;
    const parts = [
        ...(diff > 0 ? [`${diff} got another status class than recorded`] : []),
        ...(notReplayed > 0 ? [`${notReplayed} could not be replayed as recorded`] : [])
    ];
    terminal.stderr(`Error: ${parts.join(' and ')}; see the DIFF and NOT REPLAYED lines above.`);
    return 1;
}
function loadHar(path) {
    const shown = (0,printable/* printablePath */.Vj)(path);
    let text;
    try {
        if ((0,external_node_fs_.statSync)(path).size > MAX_HAR_BYTES)
            throw new cli_arguments/* UsageError */.eb(`${shown} is larger than 512 MiB.`);
        text = (0,external_node_fs_.readFileSync)(path, 'utf8');
    }
    catch (error) {
        if (error instanceof cli_arguments/* UsageError */.eb)
            throw error;
        const code = error.code;
        throw new cli_arguments/* UsageError */.eb(`${shown} cannot be read (${typeof code === 'string' ? code : 'error'}): name a HAR file.`);
    }
    try {
        return readHar(text);
    }
    catch (error) {
        if (!(error instanceof HarError))
            throw error;
        throw new cli_arguments/* UsageError */.eb(`${shown} ${error.message}.`);
    }
}
function replay_select(all, options) {
    const past = [...(options.indexes ?? [])].find(index => index > all.length);
    if (past !== undefined) {
        throw new cli_arguments/* UsageError */.eb(`--index ${past} is past the last entry of the HAR (${all.length}).`);
    }
    return all.filter(request => (options.indexes === undefined || options.indexes.has(request.index)) &&
        (options.methods === undefined || options.methods.has(request.method.toUpperCase())) &&
        (options.pathPrefix === undefined || request.target.startsWith(options.pathPrefix)));
}
function whyNotReplayable(recorded, target) {
    if (recorded.body?.incomplete !== undefined)
        return recorded.body.incomplete;
    if (recorded.method === '')
        return 'it has no method';
    if (recorded.method !== recorded.method.toUpperCase()) {
        return 'its method is not in upper case, and Node sends methods only in upper case';
    }
    const upgrade = recorded.headers.some(([name]) => name.toLowerCase() === 'upgrade');
    if (upgrade || recorded.status === 101)
        return 'an Upgrade (WebSocket) handshake is not replayed';
    if (!/^[\x21-\x7e]+$/.test(target)) {
        return 'its path holds characters outside printable ASCII, which cannot be sent as recorded';
    }
    return undefined;
}
function outgoingFor(recorded, to) {
    const withheld = [];
    const sentRedacted = [];
    const connectionListed = new Set(recorded.headers
        .filter(([name]) => name.toLowerCase() === 'connection')
        .flatMap(([, value]) => value.split(',').map(option => option.trim().toLowerCase())));
    const headers = recorded.headers.filter(([name, value]) => {
        const lower = name.toLowerCase();
        if (NOT_FORWARDED.has(lower) || lower.startsWith('proxy-') || lower.startsWith(':'))
            return false;
        if (connectionListed.has(lower))
            return false;
        if (value === REDACTED)
            return (withheld.push(name), false);
        if (value.includes(REDACTED))
            sentRedacted.push(name);
        return true;
    });
    if (!headers.some(([name]) => name.toLowerCase() === 'host'))
        headers.unshift(['Host', to.host]);
    const body = recorded.body?.bytes ?? Buffer.alloc(0);
    const hadLength = recorded.headers.some(([name]) => ['content-length', 'transfer-encoding'].includes(name.toLowerCase()));
    if (body.length > 0 || hadLength || !/^(GET|HEAD|DELETE|OPTIONS|TRACE)$/i.test(recorded.method)) {
        headers.push(['Content-Length', String(body.length)]);
    }
    const { target, dropped } = withoutRedactedQuery(recorded.target);
    withheld.push(...dropped.map(name => `query ${name}`));
    const prefix = to.pathname.replace(/\/$/, '');
    return {
        outgoing: {
            method: recorded.method,
            target: target === '*' && prefix !== '' ? prefix : `${prefix}${target}`,
            headers,
            body
        },
        withheld,
        sentRedacted
    };
}
function withoutRedactedQuery(target) {
    const question = target.indexOf('?');
    if (question === -1)
        return { target, dropped: [] };
    const dropped = [];
    const kept = target
        .slice(question + 1)
        .split('&')
        .filter(pair => {
        const equals = pair.indexOf('=');
        if (equals === -1 || pair.slice(equals + 1) !== REDACTED)
            return true;
        return (dropped.push(pair.slice(0, equals)), false);
    });
    const path = target.slice(0, question);
    return { target: kept.length > 0 ? `${path}?${kept.join('&')}` : path, dropped };
}
function statusClass(status) {
    return Math.floor(status / 100);
}


/***/ })

};
;