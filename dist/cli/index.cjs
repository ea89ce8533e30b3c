#!/usr/bin/env node
/******/ (() => { // webpackBootstrap
/******/ 	"use strict";
/******/ 	var __webpack_modules__ = ({

/***/ 488:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var net = __nccwpck_require__(278);
var tls = __nccwpck_require__(756);
var http = __nccwpck_require__(611);
var https = __nccwpck_require__(692);
var events = __nccwpck_require__(434);
var assert = __nccwpck_require__(613);
var util = __nccwpck_require__(23);


exports.httpOverHttp = httpOverHttp;
exports.httpsOverHttp = httpsOverHttp;
exports.httpOverHttps = httpOverHttps;
exports.httpsOverHttps = httpsOverHttps;


function httpOverHttp(options) {
  var agent = new TunnelingAgent(options);
  agent.request = http.request;
  return agent;
}

function httpsOverHttp(options) {
  var agent = new TunnelingAgent(options);
  agent.request = http.request;
  agent.createSocket = createSecureSocket;
  agent.defaultPort = 443;
  return agent;
}

function httpOverHttps(options) {
  var agent = new TunnelingAgent(options);
  agent.request = https.request;
  return agent;
}

function httpsOverHttps(options) {
  var agent = new TunnelingAgent(options);
  agent.request = https.request;
  agent.createSocket = createSecureSocket;
  agent.defaultPort = 443;
  return agent;
}


function TunnelingAgent(options) {
  var self = this;
  self.options = options || {};
  self.proxyOptions = self.options.proxy || {};
  self.maxSockets = self.options.maxSockets || http.Agent.defaultMaxSockets;
  self.requests = [];
  self.sockets = [];

  self.on('free', function onFree(socket, host, port, localAddress) {
    var options = toOptions(host, port, localAddress);
    for (var i = 0, len = self.requests.length; i < len; ++i) {
      var pending = self.requests[i];
      if (pending.host === options.host && pending.port === options.port) {
        // Detect the request to connect same origin server,
        // reuse the connection.
        self.requests.splice(i, 1);
        pending.request.onSocket(socket);
        return;
      }
    }
    socket.destroy();
    self.removeSocket(socket);
  });
}
util.inherits(TunnelingAgent, events.EventEmitter);

TunnelingAgent.prototype.addRequest = function addRequest(req, host, port, localAddress) {
  var self = this;
  var options = mergeOptions({request: req}, self.options, toOptions(host, port, localAddress));

  if (self.sockets.length >= this.maxSockets) {
    // We are over limit so we'll add it to the queue.
    self.requests.push(options);
    return;
  }

  // If we are under maxSockets create a new one.
  self.createSocket(options, function(socket) {
    socket.on('free', onFree);
    socket.on('close', onCloseOrRemove);
    socket.on('agentRemove', onCloseOrRemove);
    req.onSocket(socket);

    function onFree() {
      self.emit('free', socket, options);
    }

    function onCloseOrRemove(err) {
      self.removeSocket(socket);
      socket.removeListener('free', onFree);
      socket.removeListener('close', onCloseOrRemove);
      socket.removeListener('agentRemove', onCloseOrRemove);
    }
  });
};

TunnelingAgent.prototype.createSocket = function createSocket(options, cb) {
  var self = this;
  var placeholder = {};
  self.sockets.push(placeholder);

  var connectOptions = mergeOptions({}, self.proxyOptions, {
    method: 'CONNECT',
    path: options.host + ':' + options.port,
    agent: false,
    headers: {
      host: options.host + ':' + options.port
    }
  });
  if (options.localAddress) {
    connectOptions.localAddress = options.localAddress;
  }
  if (connectOptions.proxyAuth) {
    connectOptions.headers = connectOptions.headers || {};
    connectOptions.headers['Proxy-Authorization'] = 'Basic ' +
        new Buffer(connectOptions.proxyAuth).toString('base64');
  }

  debug('making CONNECT request');
  var connectReq = self.request(connectOptions);
  connectReq.useChunkedEncodingByDefault = false; // for v0.6
  connectReq.once('response', onResponse); // for v0.6
  connectReq.once('upgrade', onUpgrade);   // for v0.6
  connectReq.once('connect', onConnect);   // for v0.7 or later
  connectReq.once('error', onError);
  connectReq.end();

  function onResponse(res) {
    // Very hacky. This is necessary to avoid http-parser leaks.
    res.upgrade = true;
  }

  function onUpgrade(res, socket, head) {
    // Hacky.
    process.nextTick(function() {
      onConnect(res, socket, head);
    });
  }

  function onConnect(res, socket, head) {
    connectReq.removeAllListeners();
    socket.removeAllListeners();

    if (res.statusCode !== 200) {
      debug('tunneling socket could not be established, statusCode=%d',
        res.statusCode);
      socket.destroy();
      var error = new Error('tunneling socket could not be established, ' +
        'statusCode=' + res.statusCode);
      error.code = 'ECONNRESET';
      options.request.emit('error', error);
      self.removeSocket(placeholder);
      return;
    }
    if (head.length > 0) {
      debug('got illegal response body from proxy');
      socket.destroy();
      var error = new Error('got illegal response body from proxy');
      error.code = 'ECONNRESET';
      options.request.emit('error', error);
      self.removeSocket(placeholder);
      return;
    }
    debug('tunneling connection has established');
    self.sockets[self.sockets.indexOf(placeholder)] = socket;
    return cb(socket);
  }

  function onError(cause) {
    connectReq.removeAllListeners();

    debug('tunneling socket could not be established, cause=%s\n',
          cause.message, cause.stack);
    var error = new Error('tunneling socket could not be established, ' +
                          'cause=' + cause.message);
    error.code = 'ECONNRESET';
    options.request.emit('error', error);
    self.removeSocket(placeholder);
  }
};

TunnelingAgent.prototype.removeSocket = function removeSocket(socket) {
  var pos = this.sockets.indexOf(socket)
  if (pos === -1) {
    return;
  }
  this.sockets.splice(pos, 1);

  var pending = this.requests.shift();
  if (pending) {
    // If we have pending requests and a socket gets closed a new one
    // needs to be created to take over in the pool for the one that closed.
    this.createSocket(pending, function(socket) {
      pending.request.onSocket(socket);
    });
  }
};

function createSecureSocket(options, cb) {
  var self = this;
  TunnelingAgent.prototype.createSocket.call(self, options, function(socket) {
    var hostHeader = options.request.getHeader('host');
    var tlsOptions = mergeOptions({}, self.options, {
      socket: socket,
      servername: hostHeader ? hostHeader.replace(/:.*$/, '') : options.host
    });

    // 0 is dummy port for v0.6
    var secureSocket = tls.connect(0, tlsOptions);
    self.sockets[self.sockets.indexOf(socket)] = secureSocket;
    cb(secureSocket);
  });
}


function toOptions(host, port, localAddress) {
  if (typeof host === 'string') { // since v0.10
    return {
      host: host,
      port: port,
      localAddress: localAddress
    };
  }
  return host; // for v0.11 or later
}

function mergeOptions(target) {
  for (var i = 1, len = arguments.length; i < len; ++i) {
    var overrides = arguments[i];
    if (typeof overrides === 'object') {
      var keys = Object.keys(overrides);
      for (var j = 0, keyLen = keys.length; j < keyLen; ++j) {
        var k = keys[j];
        if (overrides[k] !== undefined) {
          target[k] = overrides[k];
        }
      }
    }
  }
  return target;
}


var debug;
if (process.env.NODE_DEBUG && /\btunnel\b/.test(process.env.NODE_DEBUG)) {
  debug = function() {
    var args = Array.prototype.slice.call(arguments);
    if (typeof args[0] === 'string') {
      args[0] = 'TUNNEL: ' + args[0];
    } else {
      args.unshift('TUNNEL:');
    }
    console.error.apply(console, args);
  }
} else {
  debug = function() {};
}
exports.debug = debug; // for test


/***/ }),

/***/ 693:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   We: () => (/* binding */ parseArguments),
/* harmony export */   eb: () => (/* binding */ UsageError)
/* harmony export */ });
/* unused harmony export COMMANDS */
/* harmony import */ var _option_names_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(301);

const COMMANDS = ['provision', 'revoke', 'run'];
class UsageError extends Error {
}
function parseArguments(argv) {
    const dashes = argv.indexOf('--');
    const own = dashes === -1 ? argv : argv.slice(0, dashes);
    const commandLine = dashes === -1 ? [] : argv.slice(dashes + 1);
    if (own.includes('--help') || own.includes('-h'))
        return { type: 'help' };
    if (own.includes('--version') || own.includes('-V'))
        return { type: 'version' };
    if (argv[0] === 'replay')
        return { type: 'replay', args: argv.slice(1) };
    let command;
    const flags = new Map();
    for (let index = 0; index < own.length; index++) {
        const token = own[index];
        if (!token.startsWith('-')) {
            if (command !== undefined) {
                const hint = command === 'run' ? ': put the command after "--", e.g. run -- ./deploy.sh' : '.';
                throw new UsageError(`${describePositional(token)} is not expected after "${command}"${hint}`);
            }
            command = commandNamed(token);
            continue;
        }
        const { name, inline } = splitFlag(token);
        if (flags.has(name))
            throw new UsageError(`--${name} is given twice.`);
        let value = inline;
        if (value === undefined) {
            const next = own[index + 1];
            if (_option_names_js__WEBPACK_IMPORTED_MODULE_0__/* .SWITCHES */ .Xj.has(name)) {
                const given = switchValue(name, next, command);
                if (given !== undefined)
                    index++;
                value = given ?? 'true';
            }
            else if (next === undefined || next.startsWith('--')) {
                throw new UsageError(`--${name} needs a value.`);
            }
            else {
                value = own[++index];
            }
        }
        flags.set(name, value);
    }
    if (command === undefined)
        throw new UsageError('Name a command: provision, revoke, run or replay.');
    if (command === 'run' && commandLine.length === 0) {
        throw new UsageError('run needs the command to start after "--", e.g. run -- ./deploy.sh');
    }
    if (command !== 'run' && dashes !== -1) {
        throw new UsageError(`${command} starts no command; only run takes one after "--".`);
    }
    return { type: 'command', command, flags, commandLine };
}
function switchValue(name, next, command) {
    if (next === undefined || next.startsWith('-'))
        return undefined;
    if (/^(true|false)$/i.test(next))
        return next;
    if (command === undefined && isCommandWord(next))
        return undefined;
    throw new UsageError(`--${name} takes true or false: write --${name} alone or --${name} true to turn it on, --${name} false to turn it off.`);
}
function isCommandWord(word) {
    return word === 'replay' || COMMANDS.some(name => name === word);
}
function commandNamed(word) {
    const command = COMMANDS.find(name => name === word);
    if (word === 'replay') {
        throw new UsageError('replay comes first: tunnel-credentials replay FILE.har --to URL');
    }
    if (command === undefined) {
        throw new UsageError(`${describePositional(word)} is not a command: use provision, revoke, run or replay.`);
    }
    return command;
}
function splitFlag(token) {
    const equals = token.indexOf('=');
    const flag = equals === -1 ? token : token.slice(0, equals);
    const name = flag.replace(/^--/, '');
    if ((0,_option_names_js__WEBPACK_IMPORTED_MODULE_0__/* .isSecretOption */ .Et)(name)) {
        throw new UsageError(`${flag} is refused: a secret on the command line is visible to every process on the machine and kept in shell history. Set the variable ${(0,_option_names_js__WEBPACK_IMPORTED_MODULE_0__/* .variableFor */ .S_)(name)} instead.`);
    }
    const successor = flag.startsWith('--') ? _option_names_js__WEBPACK_IMPORTED_MODULE_0__/* .RETIRED_OPTIONS */ .N5.get(name) : undefined;
    if (successor !== undefined) {
        throw new UsageError(`${flag} is now --${successor}: Node reads ${flag} itself, before tunnel-credentials runs, so it cannot be an option of the tool. Use --${successor}, or the variable ${(0,_option_names_js__WEBPACK_IMPORTED_MODULE_0__/* .variableFor */ .S_)(successor)}.`);
    }
    if (!flag.startsWith('--') || !(0,_option_names_js__WEBPACK_IMPORTED_MODULE_0__/* .isFlagName */ .aA)(name)) {
        throw new UsageError(`${describeWord(flag)} is not an option.`);
    }
    return equals === -1 ? { name } : { name, inline: token.slice(equals + 1) };
}
function describePositional(word) {
    const nearCommand = COMMANDS.some(name => editDistance(word, name) <= 2);
    return nearCommand ? `"${word}"` : 'An argument';
}
function editDistance(a, b) {
    if (Math.abs(a.length - b.length) > 2)
        return 3;
    let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
        const current = [i];
        for (let j = 1; j <= b.length; j++) {
            const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
            current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, substitution);
        }
        previous = current;
    }
    return previous[b.length];
}
function describeWord(word) {
    return /^-{0,2}[A-Za-z][A-Za-z0-9-]{0,39}$/.test(word) ? `"${word}"` : 'An argument';
}


/***/ }),

/***/ 456:
/***/ ((module, __webpack_exports__, __nccwpck_require__) => {

__nccwpck_require__.a(module, async (__webpack_handle_async_dependencies__, __webpack_async_result__) => { try {
__nccwpck_require__.r(__webpack_exports__);
/* harmony import */ var _index_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(675);

const terminal = {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`)
};
process.exitCode = await (0,_index_js__WEBPACK_IMPORTED_MODULE_0__/* .main */ .i)(process.argv.slice(2), process.env, terminal);

__webpack_async_result__();
} catch(e) { __webpack_async_result__(e); } }, 1);

/***/ }),

/***/ 675:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  i: () => (/* binding */ main)
});

// EXTERNAL MODULE: ./core/text/describe-error.ts
var describe_error = __nccwpck_require__(436);
// EXTERNAL MODULE: ./cli/arguments.ts
var cli_arguments = __nccwpck_require__(693);
// EXTERNAL MODULE: ./core/options/option-facts.ts + 2 modules
var option_facts = __nccwpck_require__(862);
// EXTERNAL MODULE: ./core/errors.ts
var errors = __nccwpck_require__(519);
;// CONCATENATED MODULE: ./core/options/kind-names.ts
const KIND_NAMES = ['cicd', 'free', 'ssh-key', 'existing'];

// EXTERNAL MODULE: ./core/service/answer-secrets.ts
var answer_secrets = __nccwpck_require__(570);
// EXTERNAL MODULE: ./core/service/answer-fields.ts
var answer_fields = __nccwpck_require__(854);
// EXTERNAL MODULE: ./core/text/validators.ts
var validators = __nccwpck_require__(45);
;// CONCATENATED MODULE: ./core/service/issued-credential.ts



function issuedCredential(raw) {
    if (!(0,answer_fields/* isObject */.Gv)(raw))
        return undefined;
    const tunnelUser = (0,answer_fields/* tunnelUserOf */.h0)(raw);
    if (typeof tunnelUser !== 'string' || tunnelUser === '')
        return undefined;
    const nameable = !(0,answer_secrets/* holdsSecret */.h)(tunnelUser, (0,answer_secrets/* secretsIn */.V)(raw));
    return { tunnelUser, nameable, savable: nameable && (0,validators/* isCleanIdentifier */.VS)(tunnelUser) };
}

// EXTERNAL MODULE: external "node:net"
var external_node_net_ = __nccwpck_require__(30);
// EXTERNAL MODULE: ./core/settings/expose.ts + 1 modules
var expose = __nccwpck_require__(337);
// EXTERNAL MODULE: ./core/settings/option-values.ts
var option_values = __nccwpck_require__(344);
// EXTERNAL MODULE: ./core/text/quote.ts
var quote = __nccwpck_require__(620);
// EXTERNAL MODULE: ./core/service/extra-ca.ts + 1 modules
var extra_ca = __nccwpck_require__(531);
;// CONCATENATED MODULE: ./core/settings/common.ts






const ENV_PREFIX_PATTERN = /^[A-Z][A-Z0-9_]*$/;
function readCommonSettings(options) {
    return {
        revoke: (0,option_values/* readBoolean */.Vf)(options, 'revoke', true),
        failOnRevokeError: parseFailOnRevokeError(options),
        envPrefix: readEnvPrefix(options),
        exportEnv: (0,option_values/* readBoolean */.Vf)(options, 'export-env', true),
        http: readHttpSettings(options),
        tunnel: (0,expose/* readTunnelSettings */.ij)(options),
        optionLabel: name => options.label(name)
    };
}
function parseFailOnRevokeError(options) {
    return (0,option_values/* readBoolean */.Vf)(options, 'fail-on-revoke-error', false);
}
function readHttpSettings(options) {
    return {
        maxAttempts: (0,option_values/* readWholeNumber */.bf)(options, 'max-attempts', 1, 10) ?? 3,
        timeoutSeconds: (0,option_values/* readWholeNumber */.bf)(options, 'timeout-seconds', 1, 600) ?? 30,
        ...readCa(options)
    };
}
function readCa(options) {
    const path = options.read('ca-file').trim();
    return path === '' ? {} : { ca: (0,extra_ca/* readCaFile */.R)(path, (0,option_values/* optionNamed */.b7)(options, 'ca-file')) };
}
function readBaseUrl(options) {
    const name = (0,option_values/* optionNamed */.b7)(options, 'base-url');
    const value = options.read('base-url').trim();
    if (!value) {
        throw new errors/* ExplainedError */.h(`${name} is empty: set it to the credential service address, for example https://<your-service>/functions/v1.`);
    }
    let url;
    try {
        url = new URL(value);
    }
    catch {
        throw new errors/* ExplainedError */.h(`${name} is ${(0,quote/* quote */.h)(value)}: not a URL. Expected https://host[/path].`);
    }
    if (url.username || url.password) {
        throw new errors/* ExplainedError */.h(`${name} holds a user name or password: remove them; the API key is sent as a header.`);
    }
    if (url.search || url.hash) {
        throw new errors/* ExplainedError */.h(`${name} is ${(0,quote/* quote */.h)(value)}: remove the query string or fragment.`);
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
        throw new errors/* ExplainedError */.h(`${name} is ${(0,quote/* quote */.h)(value)}: it must use https. Plain http is accepted only for loopback hosts (localhost, 127.0.0.0/8, ::1), for local testing.`);
    }
    const path = url.pathname.replace(/\/+$/, '') || '/functions/v1';
    return `${url.protocol}//${url.host}${path}`;
}
function isLoopback(hostname) {
    const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (host === 'localhost' || host === '::1')
        return true;
    return (0,external_node_net_.isIP)(host) === 4 && host.startsWith('127.');
}
function readEnvPrefix(options) {
    const value = options.read('env-prefix').trim() || 'SVC';
    if (!ENV_PREFIX_PATTERN.test(value)) {
        throw new errors/* ExplainedError */.h(`${(0,option_values/* optionNamed */.b7)(options, 'env-prefix')} is ${(0,quote/* quote */.h)(value)}: expected an upper-case letter followed by upper-case letters, digits or underscores, such as SVC.`);
    }
    return value;
}

// EXTERNAL MODULE: ./core/service/credential.ts + 1 modules
var service_credential = __nccwpck_require__(464);
// EXTERNAL MODULE: ./core/text/printable.ts
var printable = __nccwpck_require__(479);
// EXTERNAL MODULE: ./core/text/log-commands.ts
var log_commands = __nccwpck_require__(785);
;// CONCATENATED MODULE: ./core/settings/login-options.ts









const API_KEY_PATTERN = /^sk_[0-9a-f]{64}$/i;
function readApiKey(options, kind) {
    const apiKey = options.read(option_facts/* API_KEY_OPTION */.$n).trim();
    const name = (0,option_values/* optionNamed */.b7)(options, option_facts/* API_KEY_OPTION */.$n);
    if (!apiKey) {
        throw new errors/* ExplainedError */.h(`${name} is empty, and ${options.label('credential')} is "${kind}", which needs it. ` +
            'If it comes from a secret: CI systems withhold secrets from some runs (on GitHub, workflows run from forks and Dependabot), ' +
            `so the secret reads as empty there. Set ${options.label('credential')} to auto to fall back to a free 5-minute credential in that case.`);
    }
    if (!API_KEY_PATTERN.test(apiKey)) {
        throw new errors/* ExplainedError */.h(`${name} is not an API key: expected sk_ followed by 64 hexadecimal characters. ` +
            'Check that the secret holds the whole key, with no quotes or extra text.');
    }
    return apiKey;
}
function readTunnelHost(options) {
    const value = options.read('tunnel-host').trim();
    if (!value)
        return undefined;
    if (!(0,validators/* isBareHost */.jY)(value)) {
        throw new errors/* ExplainedError */.h(`${(0,option_values/* optionNamed */.b7)(options, 'tunnel-host')} is ${(0,quote/* quote */.h)(value)}: expected a bare hostname or IP address, without scheme, port or path.`);
    }
    return value;
}
function readTunnelPort(options) {
    return (0,option_values/* readWholeNumber */.bf)(options, 'tunnel-port', 1, 65535);
}
function readTunnelServer(options) {
    return { host: readTunnelHost(options), port: readTunnelPort(options) };
}
function requireTunnelServer(server, options, kind, why) {
    if (!server.host) {
        throw new errors/* ExplainedError */.h(`${(0,option_values/* optionNamed */.b7)(options, 'tunnel-host')} is empty, and credential is "${kind}", which needs it: ${why}`);
    }
    return { tunnelHost: server.host, tunnelPort: server.port ?? service_credential/* DEFAULT_TUNNEL_PORT */.h };
}
function readTunnelToken(options, kind) {
    const value = options.read(option_facts/* TUNNEL_TOKEN_OPTION */.zK).trim();
    const name = (0,option_values/* optionNamed */.b7)(options, option_facts/* TUNNEL_TOKEN_OPTION */.zK);
    if (!value) {
        throw new errors/* ExplainedError */.h(`${name} is empty, and credential is "${kind}", which needs it: pass the token you already hold, from a secret.`);
    }
    if ((0,printable/* hasUnsafeCharacter */.QR)(value)) {
        throw new errors/* ExplainedError */.h(`${name} holds whitespace or control characters: check that the secret holds the token alone, on one line.`);
    }
    return value;
}
function readTunnelUser(options, name, kind, whatItIs, { changeable, secrets = [] }) {
    const value = options.read(name).trim();
    const label = (0,option_values/* optionNamed */.b7)(options, name);
    if (!value) {
        throw new errors/* ExplainedError */.h(`${label} is empty, and credential is "${kind}", which needs it: set it to ${whatItIs}.`);
    }
    if ((0,answer_secrets/* holdsSecret */.h)(value, secrets)) {
        throw new errors/* ExplainedError */.h(`${label} holds the ${option_facts/* TUNNEL_TOKEN_OPTION */.zK}, or a long piece of it: check that the two inputs are not swapped.`);
    }
    if (value.length > 200 || (0,printable/* hasUnsafeCharacter */.QR)(value) || (0,log_commands/* holdsCommandMarker */.eK)(value)) {
        throw new errors/* ExplainedError */.h(`${label} is ${(0,quote/* quote */.h)(value)}: expected a user name without spaces, control characters or log command markers ("::", or "#" followed by "#[" or "#vso[").`);
    }
    return { name: value, from: { label: options.label(name), changeable } };
}
function readSelfNamedLogin(options, login, secrets = []) {
    const server = readTunnelServer(options);
    const knownUser = readTunnelUser(options, login.userOption, login.kind, login.whatTheUserIs, {
        changeable: login.userChangeable,
        secrets
    });
    return { knownUser, ...requireTunnelServer(server, options, login.kind, login.whyTheHost) };
}

// EXTERNAL MODULE: ./core/text/iso-time.ts
var iso_time = __nccwpck_require__(87);
;// CONCATENATED MODULE: ./core/expiry.ts


function expiryNote(saved) {
    return saved.expiresAt ? ` It expires by itself at ${(0,printable/* printable */.g$)(saved.expiresAt, 40)}.` : '';
}

;// CONCATENATED MODULE: ./core/kinds/revoke-guard.ts


function shouldRevoke(settings, saved) {
    return settings.revoke || saved.rejected === true;
}
function leftToRun(settings, saved) {
    return saved.shared === true && settings.share !== 'off';
}
function requireRevokeApiKey(settings) {
    if (!settings.apiKey) {
        throw new errors/* ExplainedError */.h(`${settings.optionLabel(option_facts/* API_KEY_OPTION */.$n)} is empty when revoking, so the revoke request cannot be authenticated.`);
    }
}

;// CONCATENATED MODULE: ./core/kinds/revoke-unused.ts
async function revokeUnused(what, revoke, { log, clearSaved, explain }, saved = true) {
    try {
        await revoke();
    }
    catch (error) {
        if (saved) {
            log.info(`Could not revoke ${what} yet (${explain(error)}); revoking when the job ends tries again.`);
        }
        else {
            log.warning(`Could not revoke ${what} (${explain(error)}). It cannot be saved for revoking when the job ends, so it stays valid until it expires.`);
        }
        return;
    }
    log.info(`Revoked ${what}, which this step could not use.`);
    try {
        clearSaved();
    }
    catch {
    }
}

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __nccwpck_require__(598);
;// CONCATENATED MODULE: ./core/share/sealed-credential.ts


class ShareRefusal extends Error {
    reason;
    constructor(reason, message) {
        super(message);
        this.reason = reason;
        this.name = 'ShareRefusal';
    }
}
const PREFIX = 'ptc1';
const INFO = 'provision-tunnel-credentials shared-credential v1';
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_BLOB_LENGTH = 16_384;
function sealCredential(payload, apiKey, binding) {
    const header = Buffer.from(JSON.stringify(bindingRecord(binding)), 'utf8');
    const salt = (0,external_node_crypto_.randomBytes)(SALT_BYTES);
    const iv = (0,external_node_crypto_.randomBytes)(IV_BYTES);
    const cipher = (0,external_node_crypto_.createCipheriv)('aes-256-gcm', keyFor(apiKey, salt), iv);
    cipher.setAAD(header);
    const body = Buffer.concat([
        cipher.update(JSON.stringify(payload), 'utf8'),
        cipher.final(),
        cipher.getAuthTag()
    ]);
    return [PREFIX, ...[header, salt, iv, body].map(part => part.toString('base64url'))].join('.');
}
function openSealedCredential(blob, apiKey, binding) {
    const parts = splitBlob(blob.trim());
    const sealedFor = readBindingRecord(parts.header);
    const differs = bindingDifference(sealedFor, bindingRecord(binding));
    if (differs !== undefined)
        throw new ShareRefusal('other-run', differs);
    let plain;
    try {
        const decipher = (0,external_node_crypto_.createDecipheriv)('aes-256-gcm', keyFor(apiKey, parts.salt), parts.iv);
        decipher.setAAD(parts.header);
        decipher.setAuthTag(parts.body.subarray(parts.body.length - TAG_BYTES));
        plain = Buffer.concat([
            decipher.update(parts.body.subarray(0, parts.body.length - TAG_BYTES)),
            decipher.final()
        ]);
    }
    catch {
        throw new ShareRefusal('tampered', "The shared credential does not open with this API key: it was changed after it was sealed, or sealed with another API key. Pass the setup job's shared-credential output unchanged, with the same API key.");
    }
    try {
        return JSON.parse(plain.toString('utf8'));
    }
    catch {
        throw malformed();
    }
}
function keyFor(apiKey, salt) {
    return Buffer.from((0,external_node_crypto_.hkdfSync)('sha256', Buffer.from(apiKey, 'utf8'), salt, INFO, 32));
}
function bindingRecord(binding) {
    return {
        v: 1,
        system: binding.system,
        repository: binding.repository,
        run: binding.runId,
        project: binding.project
    };
}
const BASE64URL = /^[A-Za-z0-9_-]+$/;
function splitBlob(blob) {
    if (blob.length > MAX_BLOB_LENGTH)
        throw malformed();
    const parts = blob.split('.');
    if (parts.length !== 5 || parts[0] !== PREFIX)
        throw malformed();
    if (!parts.slice(1).every(part => BASE64URL.test(part)))
        throw malformed();
    const [header, salt, iv, body] = parts.slice(1).map(part => Buffer.from(part, 'base64url'));
    if (salt.length !== SALT_BYTES || iv.length !== IV_BYTES || body.length <= TAG_BYTES) {
        throw malformed();
    }
    return { header, salt, iv, body };
}
function readBindingRecord(header) {
    let value;
    try {
        value = JSON.parse(header.toString('utf8'));
    }
    catch {
        throw malformed();
    }
    if (typeof value !== 'object' || value === null)
        throw malformed();
    const record = value;
    const fields = ['system', 'repository', 'run', 'project'];
    if (record.v !== 1 || !fields.every(field => typeof record[field] === 'string'))
        throw malformed();
    return record;
}
function bindingDifference(sealed, current) {
    const rerun = " Each run shares its own credential: use the shared-credential output of this run's setup job.";
    if (sealed.system !== current.system) {
        return `The shared credential was sealed on another CI system, not for this run.${rerun}`;
    }
    if (sealed.repository !== current.repository) {
        return `The shared credential was sealed for another repository, not ${(0,printable/* printable */.g$)(current.repository)}.${rerun}`;
    }
    if (sealed.run !== current.run) {
        return `The shared credential was sealed for another run, not run ${(0,printable/* printable */.g$)(current.run)} of ${(0,printable/* printable */.g$)(current.repository)}.${rerun}`;
    }
    if (sealed.project !== current.project) {
        return `The shared credential was sealed for another project, not "${(0,printable/* printable */.g$)(current.project)}": set the same project in every job of the run.`;
    }
    return undefined;
}
function malformed() {
    return new ShareRefusal('malformed', "The shared credential is not one this tool sealed: pass the setup job's shared-credential output unchanged.");
}

;// CONCATENATED MODULE: ./core/share/shared-payload.ts

function sharedPayload(credential, baseUrl) {
    return {
        token: credential.token,
        tunnel_user: credential.tunnelUser,
        client_id: credential.clientId,
        tunnel_host: credential.tunnelHost,
        tunnel_port: credential.tunnelPort,
        ...(credential.expiresAt !== undefined && { expires_at: credential.expiresAt }),
        ...(credential.ttlMinutes !== undefined && { ttl_minutes: credential.ttlMinutes }),
        ...(credential.projectSlug !== undefined && { project_slug: credential.projectSlug }),
        ...(credential.ownershipType !== undefined && { ownership_type: credential.ownershipType }),
        ...(credential.tunnelFqdn !== undefined && { tunnel_fqdn: credential.tunnelFqdn }),
        ...(credential.appendUserToSubdomain !== undefined && {
            append_user_to_subdomain: credential.appendUserToSubdomain
        }),
        base_url: baseUrl
    };
}
function payloadBaseUrl(payload) {
    return (0,answer_fields/* isObject */.Gv)(payload) && typeof payload.base_url === 'string' ? payload.base_url : undefined;
}

;// CONCATENATED MODULE: ./core/share/create-shared.ts



function withSharedCredential(obtained, credential, settings, share) {
    if (credential.expiresAt === undefined) {
        throw new errors/* ExplainedError */.h(`The service issued a credential without an expiry, although ${share.label('ttl-minutes')} was set; ` +
            `a shared credential lives for the whole run, so it must expire. It was revoked, and nothing was shared. ` +
            `Report this to the service operator, or set ${share.label('share')} to off.`);
    }
    const blob = sealCredential(sharedPayload(credential, settings.baseUrl), settings.apiKey, {
        system: share.scope.system,
        repository: share.scope.repository,
        runId: share.scope.runId,
        project: settings.project
    });
    return {
        ...obtained,
        outputs: { ...obtained.outputs, 'shared-credential': blob },
        announcement: `${obtained.announcement} Shared with the other jobs of this run as the shared-credential output; it is left for the final job (share: revoke) to revoke.`
    };
}

;// CONCATENATED MODULE: ./core/kinds/saved-issued.ts
function readSavedIssued(saved) {
    const text = (field) => typeof saved[field] === 'string' && saved[field] !== '' ? saved[field] : undefined;
    const baseUrl = text('baseUrl');
    const expiresAt = text('expiresAt');
    return {
        ...(baseUrl && { baseUrl }),
        ...(expiresAt && { expiresAt }),
        ...(saved.rejected === true && { rejected: true }),
        ...(saved.shared === true && { shared: true })
    };
}

;// CONCATENATED MODULE: ./core/kinds/token.ts



function tokenObtained(credential, words, context = {}) {
    const project = credential.projectSlug ?? context.project ?? '';
    return {
        env: {
            TUNNEL_TOKEN: credential.token,
            TUNNEL_USER: credential.tunnelUser,
            TUNNEL_HOST: credential.tunnelHost,
            TUNNEL_PORT: String(credential.tunnelPort)
        },
        outputs: {
            token: credential.token,
            'tunnel-user': credential.tunnelUser,
            'client-id': credential.clientId,
            'tunnel-host': credential.tunnelHost,
            'tunnel-port': String(credential.tunnelPort),
            'expires-at': credential.expiresAt ?? '',
            'ttl-minutes': credential.ttlMinutes === undefined ? '' : String(credential.ttlMinutes),
            'project-slug': project,
            credential: words.kind
        },
        summary: [
            ['Project', project],
            ['Environment', context.environment ?? ''],
            ['Tunnel user', credential.tunnelUser],
            ['Tunnel host', credential.tunnelHost],
            ['Tunnel port', String(credential.tunnelPort)],
            ['Ownership', credential.ownershipType ?? ''],
            ['Expires at', credential.expiresAt ?? (words.expiryUnknown ? 'not given' : NO_EXPIRY)],
            ['Credential', words.label]
        ],
        announcement: `${words.verb} tunnel user ${credential.tunnelUser} for ${credential.tunnelHost}:${credential.tunnelPort}` +
            `${credential.expiresAt ? `, valid until ${credential.expiresAt}` : words.expiryUnknown ? '' : `, with ${NO_EXPIRY}`}.`,
        login: {
            kind: words.kind,
            user: credential.tunnelUser,
            host: credential.tunnelHost,
            port: credential.tunnelPort,
            secret: { type: 'password', token: credential.token },
            ...(credential.expiresAt && { expiresAt: credential.expiresAt }),
            answerUrl: answerUrlOf(credential)
        }
    };
}
const NO_EXPIRY = 'no expiry';
function answerUrlOf({ tunnelFqdn, appendUserToSubdomain }) {
    return {
        ...(tunnelFqdn !== undefined && { tunnelFqdn }),
        ...(appendUserToSubdomain !== undefined && { appendUserToSubdomain })
    };
}
function acceptIssuedToken(raw, kind, settings, { log, save }) {
    const credential = (0,service_credential/* parseCredential */.n)(raw, settings);
    if (credential.portDefaulted) {
        log.notice(`The service sent no tunnel_port; using the default port ${credential.tunnelPort}.`);
    }
    save(savedTokenOf(kind, credential, settings.baseUrl));
    return credential;
}
function savedTokenOf(kind, { tunnelUser, expiresAt }, baseUrl) {
    return { kind, tunnelUser, baseUrl, ...(expiresAt && { expiresAt }) };
}
function readSavedToken(kind, saved) {
    const { tunnelUser } = saved;
    if (!(0,validators/* isCleanIdentifier */.VS)(tunnelUser))
        return undefined;
    return { kind, tunnelUser, ...readSavedIssued(saved) };
}

;// CONCATENATED MODULE: ./core/kinds/cicd.ts












const WORDS = { kind: 'cicd', label: 'cicd', verb: 'Provisioned' };
const cicdKind = {
    readSettings(options, common) {
        const tunnelHost = readTunnelHost(options);
        const tunnelPort = readTunnelPort(options);
        const apiKey = readApiKey(options, 'cicd');
        const project = (0,option_values/* readOneLine */.nN)(options, 'project');
        if (!project) {
            throw new errors/* ExplainedError */.h(`${(0,option_values/* optionNamed */.b7)(options, 'project')} is empty: set it to the project slug to provision for.`);
        }
        return {
            ...common,
            kind: 'cicd',
            apiKey,
            project,
            environment: (0,option_values/* readOneLine */.nN)(options, 'environment'),
            ttlMinutes: (0,option_values/* readWholeNumber */.bf)(options, 'ttl-minutes', 1),
            baseUrl: readBaseUrl(options),
            tunnelHost,
            tunnelPort
        };
    },
    sendsRequests: true,
    revocation: 'revoke',
    async obtain(settings, context) {
        const { service, log, mask, save, publish } = context;
        const environment = settings.environment ? ` (${settings.environment})` : '';
        log.info(`Provisioning tunnel credentials for project "${settings.project}"${environment} from ${settings.baseUrl}`);
        const client = service();
        const raw = await client.provisionCredential(settings);
        mask((0,answer_secrets/* secretsIn */.V)(raw));
        const issued = issuedCredential(raw);
        try {
            if (issued?.savable) {
                save({
                    kind: 'cicd',
                    tunnelUser: issued.tunnelUser,
                    baseUrl: settings.baseUrl,
                    rejected: true
                });
            }
            const credential = acceptIssuedToken(raw, 'cicd', settings, context);
            const provisioned = tokenObtained(credential, WORDS, settings);
            const { shareForRun } = context;
            const obtained = shareForRun
                ? withSharedCredential(provisioned, credential, settings, shareForRun)
                : provisioned;
            await publish(obtained);
            if (shareForRun) {
                save({ ...savedTokenOf('cicd', credential, settings.baseUrl), shared: true });
            }
            return obtained;
        }
        catch (error) {
            if (issued !== undefined) {
                await revokeUnused(`the credential of ${issued.nameable ? `tunnel user ${(0,printable/* printable */.g$)(issued.tunnelUser, 100)}` : 'a tunnel user that holds the token'}`, () => client.revokeCredential(settings.apiKey, issued.tunnelUser), context, issued.savable);
            }
            throw error;
        }
    },
    readSaved: saved => readSavedToken('cicd', saved),
    async revoke(saved, { settings, service, log }) {
        if (leftToRun(settings, saved)) {
            log.info(`Not revoking tunnel user ${(0,printable/* printable */.g$)(saved.tunnelUser)}: it is the run's shared credential, which the run's final job revokes (${settings.optionLabel('share')} revoke).${expiryNote(saved)}`);
            return 'kept';
        }
        if (!shouldRevoke(settings, saved)) {
            log.info(`Not revoking tunnel user ${(0,printable/* printable */.g$)(saved.tunnelUser)}: ${settings.optionLabel('revoke')} is false.${expiryNote(saved)}`);
            return 'kept';
        }
        requireRevokeApiKey(settings);
        const outcome = await service().revokeCredential(settings.apiKey, saved.tunnelUser);
        log.info(outcome === 'revoked'
            ? `Revoked the tunnel token of user ${(0,printable/* printable */.g$)(saved.tunnelUser)}.`
            : `The tunnel token of user ${(0,printable/* printable */.g$)(saved.tunnelUser)} was already revoked or has expired (404); nothing left to do.`);
        return 'revoked';
    },
    describe: saved => `the tunnel token of user ${(0,printable/* printable */.g$)(saved.tunnelUser)}`
};

;// CONCATENATED MODULE: ./core/kinds/existing.ts





const existing_WORDS = {
    kind: 'existing',
    label: 'existing (a token you hold; not created or revoked by this step)',
    expiryUnknown: true,
    verb: 'Using'
};
const EXISTING_LOGIN = {
    kind: 'existing',
    userOption: 'tunnel-user',
    whatTheUserIs: 'the tunnel user your token belongs to',
    userChangeable: false,
    whyTheHost: 'set it to the hostname of the tunnel server your token is for.'
};
const existingKind = {
    readSettings(options, common) {
        const tunnelToken = readTunnelToken(options, 'existing');
        const login = readSelfNamedLogin(options, EXISTING_LOGIN, [tunnelToken]);
        return { ...common, kind: 'existing', tunnelToken, tunnelUser: login.knownUser.name, ...login };
    },
    sendsRequests: false,
    revocation: 'held',
    async obtain(settings, { log, mask, save, publish }) {
        mask([settings.tunnelToken]);
        log.info(`Using the tunnel token of user ${settings.tunnelUser} from ${settings.optionLabel(option_facts/* TUNNEL_TOKEN_OPTION */.zK)}; no request is sent to the credential service.`);
        save({ kind: 'existing', tunnelUser: settings.tunnelUser });
        const obtained = tokenObtained({
            token: settings.tunnelToken,
            tunnelUser: settings.tunnelUser,
            clientId: settings.tunnelUser,
            tunnelHost: settings.tunnelHost,
            tunnelPort: settings.tunnelPort,
            portDefaulted: false
        }, existing_WORDS);
        obtained.login.userFrom = settings.knownUser.from;
        await publish(obtained);
        return obtained;
    },
    readSaved: ({ tunnelUser }) => (0,validators/* isCleanIdentifier */.VS)(tunnelUser) ? { kind: 'existing', tunnelUser } : undefined,
    async revoke(saved, { settings, log }) {
        log.info(`Nothing to revoke: the tunnel token of user ${(0,printable/* printable */.g$)(saved.tunnelUser)} came from ${settings.optionLabel(option_facts/* TUNNEL_TOKEN_OPTION */.zK)} ` +
            '(credential: existing), so this step did not create it and leaves it valid.');
        return 'kept';
    },
    describe: saved => `the tunnel token of user ${(0,printable/* printable */.g$)(saved.tunnelUser)}`
};

;// CONCATENATED MODULE: ./core/kinds/free.ts








const free_WORDS = {
    kind: 'free',
    label: 'free (5 minutes, not revocable)',
    verb: 'Provisioned'
};
const freeKind = {
    readSettings(options, common, { auto }) {
        const tunnelHost = readTunnelHost(options);
        const tunnelPort = readTunnelPort(options);
        return {
            ...common,
            kind: 'free',
            fellBackToFree: auto,
            baseUrl: readBaseUrl(options),
            tunnelHost,
            tunnelPort
        };
    },
    sendsRequests: true,
    revocation: 'unrevocable',
    async obtain(settings, context) {
        const { service, log, mask, publish } = context;
        if (settings.fellBackToFree) {
            log.warning(`${(0,option_values/* capitalised */.Iu)(settings.optionLabel(option_facts/* API_KEY_OPTION */.$n))} is empty, so ${settings.optionLabel('credential')} auto falls back to a free 5-minute credential. ` +
                'This is expected where the CI system withholds secrets (on GitHub, pull requests from forks and Dependabot runs).');
        }
        log.info(`Requesting a free 5-minute tunnel credential from ${settings.baseUrl}`);
        const raw = await service().createFreeCredential();
        mask((0,answer_secrets/* secretsIn */.V)(raw));
        const credential = acceptIssuedToken(raw, 'free', settings, context);
        const obtained = tokenObtained(credential, free_WORDS);
        obtained.login.lifetimeNote =
            'The credential is free, so the tunnel ends when the credential does: after 5 minutes (limits.max_uptime_minutes)' +
                `${credential.expiresAt ? `, at ${credential.expiresAt}` : ''}.`;
        await publish(obtained);
        return obtained;
    },
    readSaved: saved => readSavedToken('free', saved),
    async revoke(saved, { log }) {
        log.info(`Nothing to revoke: free credentials cannot be revoked.${expiryNote(saved)}`);
        return 'nothing';
    },
    describe: saved => `the free credential of user ${(0,printable/* printable */.g$)(saved.tunnelUser)}`
};

// EXTERNAL MODULE: ./core/service/retry.ts
var retry = __nccwpck_require__(652);
// EXTERNAL MODULE: ./core/service/client.ts + 2 modules
var client = __nccwpck_require__(258);
;// CONCATENATED MODULE: ./core/service/rate-limit-advice.ts
const WINDOW_SECONDS = 3600;
function retryTime(nowMs, retryAfterSeconds) {
    const at = new Date(Math.ceil((nowMs + retryAfterSeconds * 1000) / 1000) * 1000);
    if (!Number.isFinite(at.getTime()))
        return 'later';
    return `after ${at.toISOString().replace('.000Z', 'Z')} (in ${formatWait(retryAfterSeconds)})`;
}
function formatWait(seconds) {
    const whole = Math.max(0, Math.ceil(seconds));
    if (whole < 60)
        return `${whole} s`;
    if (whole < 3600) {
        const rest = whole % 60;
        return `${Math.floor(whole / 60)} min${rest > 0 ? ` ${rest} s` : ''}`;
    }
    const minutes = Math.ceil(whole / 60);
    const rest = minutes % 60;
    return `${Math.floor(minutes / 60)} h${rest > 0 ? ` ${rest} min` : ''}`;
}
function rateLimitAdvice(endpoint, retryAfterSeconds, { nowMs, sharing }, label) {
    if (endpoint !== 'credential-provision')
        return '';
    const when = retryAfterSeconds === undefined
        ? `The service did not say when; it counts requests per hour, so the next provision is possible ${retryTime(nowMs, WINDOW_SECONDS)} at the latest.`
        : `The next provision is possible ${retryTime(nowMs, retryAfterSeconds)}.`;
    return ` ${when} ${shareRemedy(label, sharing)}`;
}
function shareRemedy(label, sharing = 'possible') {
    switch (sharing) {
        case 'this-step':
            return `This step already provisions once for the whole run (${label('share')} is create): other runs, or other jobs with the same API key, used up the limit.`;
        case 'not-here':
            return `One credential per run (${label('share')}) works on GitHub Actions and GitLab CI only; here, fewer jobs that provision in an hour stay under the limit.`;
        case 'possible':
            return (`A pipeline with many jobs can provision once per run instead of once per job: ` +
                `set ${label('share')} to create in one setup job, and to use in the jobs that need the tunnel.`);
    }
}

;// CONCATENATED MODULE: ./core/service/failures.ts





const RATE_LIMITS = {
    'credential-provision': 'credential-provision allows 60 requests per hour per API key',
    'create-ephemeral-token': 'create-ephemeral-token allows 10 requests per hour per IP address',
    'revoke-token': 'revoke-token is rate limited by the service',
    'keys-upload': 'keys-upload allows 20 uploads per hour per user',
    'user-keys-list': 'user-keys-list is rate limited by the service',
    'user-tokens-list': 'user-tokens-list is rate limited by the service',
    'revoke-ssh-key': 'revoke-ssh-key is rate limited by the service'
};
const INVALID_REQUEST_HINTS = {
    'credential-provision': label => `Check ${label('project')}, ${label('environment')} and ${label('ttl-minutes')}.`,
    'create-ephemeral-token': label => `Check ${label('base-url')}.`,
    'revoke-token': label => `Check ${label('base-url')}.`,
    'keys-upload': label => `Check ${label('client-id')}; if it is right, the service may not accept ed25519 keys.`,
    'user-keys-list': label => `Check ${label('base-url')}.`,
    'user-tokens-list': label => `Check ${label('base-url')}.`,
    'revoke-ssh-key': label => `Check ${label('base-url')}.`
};
const FORBIDDEN_HINTS = {
    'credential-provision': 'Provisioning needs a key with the cicd:provision scope, on an account with the Developer plan or above.',
    'create-ephemeral-token': 'Check the base URL of the credential service.',
    'revoke-token': 'Use a key of the account that owns the token.',
    'keys-upload': 'Uploading SSH keys needs an account on the Developer plan or above, and the client-id must be one of that account.',
    'user-keys-list': 'Use the API key that uploaded the key.',
    'user-tokens-list': 'Reading the tokens may need a key with the token:read scope.',
    'revoke-ssh-key': 'The key belongs to another account than the API key used to revoke it: revoke with an API key of the account that uploaded it.'
};
function explainFailure(error, context) {
    if (error instanceof retry/* RetryAfterTooLong */.Zt && error.cause instanceof client/* ServiceError */._7) {
        const provision = error.cause.endpoint === 'credential-provision';
        return (`Rate limited by the credential service (${error.cause.message}); ${RATE_LIMITS[error.cause.endpoint]}. ` +
            `It asks to wait ${error.retryAfterSeconds} s, longer than this step waits (${retry/* MAX_RETRY_AFTER_SECONDS */.hz} s), ` +
            `so it stopped instead of sleeping: re-run the job ${retryTime(context.nowMs, error.retryAfterSeconds)}` +
            (provision
                ? `, when the next provision is possible. ${shareRemedy(labelOf(context), context.sharing)}`
                : '.'));
    }
    if (error instanceof retry/* AttemptsExhausted */.Q0 && error.cause instanceof client/* ServiceError */._7) {
        const attempts = `${error.attempts} attempt${error.attempts === 1 ? '' : 's'}`;
        return `${explainServiceError(error.cause, context)} Gave up after ${attempts} (${labelOf(context)('max-attempts')}).`;
    }
    if (error instanceof client/* ServiceError */._7)
        return explainServiceError(error, context);
    return `Unexpected error: ${(0,describe_error/* describeUnexpected */.V)(error)}. Please report it with the step's log.`;
}
function explainServiceError(error, context) {
    const label = labelOf(context);
    const said = error.serviceMessage
        ? ` The service said: ${error.serviceMessage}${/[.!?]$/.test(error.serviceMessage) ? '' : '.'}`
        : '';
    switch (error.kind) {
        case 'network':
            return `Could not reach the credential service at ${context.baseUrl} (${error.endpoint}): ${error.message}. Check ${label('base-url')}, the runner's network, and the https_proxy / no_proxy settings.`;
        case 'timeout':
            return `The credential service at ${context.baseUrl} did not answer ${error.endpoint} in time: ${error.message} (${label('timeout-seconds')}).`;
        case 'bad-response':
            return `The credential service at ${context.baseUrl} sent an unusable answer to ${error.endpoint}: ${error.message}. Check that ${label('base-url')} points at the credential service (its path usually ends in /functions/v1).`;
        case 'http':
            break;
    }
    const status = `${error.status}${error.code ? ` ${error.code}` : ''}`;
    switch (error.status) {
        case 400:
            return `The credential service rejected the request as invalid (${status}).${said} ${INVALID_REQUEST_HINTS[error.endpoint](label)}`;
        case 401:
            return `The API key was rejected (${status}).${said} Check that the API key given is a current one: it exists, is not revoked and has not expired.`;
        case 403:
            return `The API key is not allowed to do this (${status}).${said} ${FORBIDDEN_HINTS[error.endpoint]}`;
        case 404:
            return error.endpoint === 'credential-provision'
                ? `Project "${(0,printable/* printable */.g$)(context.project ?? '', 100)}" was not found, or ${label('base-url')} does not point at the credential service's API (${status}).${said} ` +
                    `Check ${label('project')} (the project's slug), or register the project first; and check that ${label('base-url')} is the service's address with its /functions/v1 path (now ${context.baseUrl}).`
                : `The credential service has no ${error.endpoint} endpoint at ${context.baseUrl} (${status}).${said} Check ${label('base-url')}.`;
        case 429:
            return `Rate limited by the credential service (${status}); ${RATE_LIMITS[error.endpoint]}.${said}${rateLimitAdvice(error.endpoint, error.retryAfterSeconds, context, label)}`;
    }
    if (error.status !== undefined && error.status >= 500) {
        return `The credential service failed (${status}).${said} This is on the service's side; re-run the job later.`;
    }
    return `The credential service answered ${error.endpoint} with an unexpected status (${status}).${said} Check ${label('base-url')}.`;
}
function labelOf(context) {
    return context.label ?? (name => name);
}

;// CONCATENATED MODULE: ./core/kinds/key-name.ts
const MAX_KEY_NAME_LENGTH = 100;
function keyNameFor(run) {
    const repository = (run.repository || 'local').replace(/[^A-Za-z0-9._-]/g, '-');
    const runId = safePart(run.runId, '0');
    const runAttempt = safePart(run.runAttempt, '1');
    return `ci-${repository}-${runId}-${runAttempt}`.slice(0, MAX_KEY_NAME_LENGTH);
}
function safePart(value, fallback) {
    const trimmed = (value ?? '').trim();
    return /^[0-9]+$/.test(trimmed) ? trimmed : fallback;
}

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __nccwpck_require__(24);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __nccwpck_require__(760);
// EXTERNAL MODULE: ./core/owned-dir.ts
var owned_dir = __nccwpck_require__(659);
;// CONCATENATED MODULE: ./core/kinds/key-file.ts



const KEY_FILE_NAME = 'id_ed25519';
const FOLDER_PREFIX = 'tunnel-key-';
function createKeyFolder(tempRoot) {
    const path = (0,external_node_fs_.mkdtempSync)((0,external_node_path_.join)(tempRoot, FOLDER_PREFIX));
    return { path, id: (0,owned_dir/* directoryId */.Vy)(path) };
}
function isKeyFolder(folder, tempRoot) {
    return (0,owned_dir/* isMadeUnder */.Gx)(folder, tempRoot, FOLDER_PREFIX);
}
function writeKeyFile(folder, privateKeyFile) {
    const path = (0,external_node_path_.join)(folder, KEY_FILE_NAME);
    (0,external_node_fs_.writeFileSync)(path, privateKeyFile, { mode: 0o600, flag: 'wx' });
    return path;
}
function removeKeyFolder(folder) {
    const check = (0,owned_dir/* checkOwnDirectory */.Ih)(folder.path, folder.id);
    if (!check.ours)
        return check.missing ? undefined : check.reason;
    const file = (0,external_node_path_.join)(folder.path, KEY_FILE_NAME);
    if (isFileOrLink(file))
        (0,external_node_fs_.rmSync)(file, { force: true });
    try {
        (0,external_node_fs_.rmdirSync)(folder.path);
    }
    catch (error) {
        if (error.code !== 'ENOENT')
            throw error;
    }
    return undefined;
}
function isFileOrLink(path) {
    try {
        const stats = (0,external_node_fs_.lstatSync)(path);
        return stats.isFile() || stats.isSymbolicLink();
    }
    catch {
        return false;
    }
}

;// CONCATENATED MODULE: ./core/kinds/ssh-key-obtained.ts
function sshKeyObtained(settings, name, keyId, fingerprint, keyFile, uploaded) {
    const { expiresAt } = uploaded;
    return {
        env: {
            TUNNEL_KEY_FILE: keyFile,
            TUNNEL_USER: settings.clientId,
            TUNNEL_HOST: settings.tunnelHost,
            TUNNEL_PORT: String(settings.tunnelPort)
        },
        outputs: {
            'key-id': keyId,
            'key-fingerprint': fingerprint,
            'key-file': keyFile,
            'expires-at': expiresAt ?? '',
            'tunnel-user': settings.clientId,
            'tunnel-host': settings.tunnelHost,
            'tunnel-port': String(settings.tunnelPort),
            credential: 'ssh-key'
        },
        summary: [
            ['Key name', name],
            ['Key fingerprint', fingerprint],
            ['Tunnel user', settings.clientId],
            ['Tunnel host', settings.tunnelHost],
            ['Tunnel port', String(settings.tunnelPort)],
            ['Expires at', expiresAt ?? 'not given'],
            ['Credential', 'ssh-key (revoked when the job ends)']
        ],
        announcement: `Uploaded SSH key ${fingerprint} (id ${keyId}) for tunnel user ${settings.clientId} ` +
            `at ${settings.tunnelHost}:${settings.tunnelPort}${expiresAt ? `, valid until ${expiresAt}` : ''}. ` +
            `Its private key is in ${keyFile}, readable by this user only.`,
        login: {
            kind: 'ssh-key',
            user: settings.clientId,
            host: settings.tunnelHost,
            port: settings.tunnelPort,
            secret: { type: 'key-file', path: keyFile },
            userFrom: settings.knownUser.from,
            ...(expiresAt && { expiresAt })
        }
    };
}

;// CONCATENATED MODULE: ./core/kinds/ssh-key-saved.ts


function readSavedSshKey(saved) {
    const text = (field) => typeof saved[field] === 'string' && saved[field] !== '' ? saved[field] : undefined;
    const identifier = (field) => (0,validators/* isCleanIdentifier */.VS)(saved[field]) ? saved[field] : undefined;
    const keyId = identifier('keyId');
    const fingerprint = identifier('fingerprint');
    const keyName = identifier('keyName');
    const keyFolder = text('keyFolder');
    const keyFolderId = text('keyFolderId');
    if (!fingerprint)
        return undefined;
    return {
        kind: 'ssh-key',
        fingerprint,
        ...(keyId && { keyId }),
        ...(keyName && { keyName }),
        ...(saved.mayHaveCopies === true && { mayHaveCopies: true }),
        ...(keyFolder && { keyFolder }),
        ...(keyFolderId && { keyFolderId }),
        ...readSavedIssued(saved)
    };
}

// EXTERNAL MODULE: ./core/text/fingerprint.ts
var fingerprint = __nccwpck_require__(196);
;// CONCATENATED MODULE: ./core/kinds/ssh-key-pair.ts


const KEY_TYPE = 'ssh-ed25519';
const AUTH_MAGIC = 'openssh-key-v1\0';
const NONE_CIPHER_BLOCK_SIZE = 8;
const PEM_LINE_LENGTH = 70;
const UNSAFE_COMMENT = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
function generateSshKeyPair(comment) {
    const { privateKey } = (0,external_node_crypto_.generateKeyPairSync)('ed25519');
    const jwk = privateKey.export({ format: 'jwk' });
    return encodeSshKeyPair({
        seed: Buffer.from(jwk.d, 'base64url'),
        publicKey: Buffer.from(jwk.x, 'base64url'),
        comment,
        checkInt: (0,external_node_crypto_.randomBytes)(4).readUInt32BE(0)
    });
}
function ed25519PublicKeyOf(seed) {
    const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
    const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
    const jwk = createPublicKey(privateKey).export({
        format: 'jwk'
    });
    return Buffer.from(jwk.x, 'base64url');
}
function encodeSshKeyPair(material) {
    const { seed, publicKey, comment, checkInt } = material;
    if (seed.length !== 32 || publicKey.length !== 32) {
        throw new Error('an ed25519 seed and public key are 32 bytes each');
    }
    if (UNSAFE_COMMENT.test(comment)) {
        throw new Error('an SSH key comment must not hold line breaks or control characters');
    }
    const blob = publicKeyBlob(publicKey);
    return {
        publicKeyLine: `${KEY_TYPE} ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`,
        privateKeyFile: privateKeyFile(blob, seed, publicKey, comment, checkInt),
        fingerprint: (0,fingerprint/* fingerprintOf */.a)(blob)
    };
}
function publicKeyBlob(publicKey) {
    return Buffer.concat([sshString(KEY_TYPE), sshString(publicKey)]);
}
function privateKeyFile(blob, seed, publicKey, comment, checkInt) {
    const check = Buffer.alloc(4);
    check.writeUInt32BE(checkInt >>> 0);
    const unpadded = Buffer.concat([
        check,
        check,
        sshString(KEY_TYPE),
        sshString(publicKey),
        sshString(Buffer.concat([seed, publicKey])),
        sshString(comment)
    ]);
    const padLength = (NONE_CIPHER_BLOCK_SIZE - (unpadded.length % NONE_CIPHER_BLOCK_SIZE)) % NONE_CIPHER_BLOCK_SIZE;
    const padding = Buffer.from(Array.from({ length: padLength }, (_, index) => index + 1));
    const body = Buffer.concat([
        Buffer.from(AUTH_MAGIC, 'latin1'),
        sshString('none'),
        sshString('none'),
        sshString(''),
        uint32(1),
        sshString(blob),
        sshString(Buffer.concat([unpadded, padding]))
    ]);
    const base64 = body.toString('base64');
    const lines = [];
    for (let start = 0; start < base64.length; start += PEM_LINE_LENGTH) {
        lines.push(base64.slice(start, start + PEM_LINE_LENGTH));
    }
    return [
        '-----BEGIN OPENSSH PRIVATE KEY-----',
        ...lines,
        '-----END OPENSSH PRIVATE KEY-----',
        ''
    ].join('\n');
}
function sshString(value) {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    return Buffer.concat([uint32(bytes.length), bytes]);
}
function uint32(value) {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(value);
    return bytes;
}

;// CONCATENATED MODULE: ./core/kinds/uploaded-key.ts


const SAFE_ID = /^[A-Za-z0-9._:-]{1,200}$/;
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{1,100}={0,2}$/;
function readKeyId(raw) {
    if (typeof raw !== 'object' || raw === null)
        return undefined;
    const keyId = raw.key_id;
    return typeof keyId === 'string' && SAFE_ID.test(keyId) ? keyId : undefined;
}
function parseUploadedKey(raw) {
    const keyId = readKeyId(raw);
    if (keyId === undefined)
        throw invalidUpload('key_id is missing or not a plain identifier');
    const answer = raw;
    const fingerprint = answer.public_key_fingerprint;
    if (typeof fingerprint !== 'string' || !FINGERPRINT.test(fingerprint)) {
        throw invalidUpload('public_key_fingerprint is missing or not of the form SHA256:<base64>');
    }
    const expiresAt = answer.expires_at;
    if (expiresAt !== undefined && expiresAt !== null) {
        if (!(0,iso_time/* isIsoTime */.d)(expiresAt)) {
            throw invalidUpload('expires_at is not an ISO 8601 time');
        }
    }
    return { keyId, fingerprint, ...(typeof expiresAt === 'string' && { expiresAt }) };
}
function sameFingerprint(fromService, computed) {
    return fromService.replace(/=+$/, '') === computed.replace(/=+$/, '');
}
function invalidUpload(what) {
    return new errors/* ExplainedError */.h(`The credential service sent a key upload answer that failed validation: ${what}. Nothing was exported. ` +
        'Check that base-url points at the credential service; if it does, report this to the service operator.');
}

;// CONCATENATED MODULE: ./core/kinds/key-records.ts



const DEAD_STATUSES = new Set(['revoked', 'expired', 'deleted']);
async function revokeKeyRecords(client, apiKey, fingerprint, keep) {
    const records = liveRecordsOf(await client.listKeys(apiKey), fingerprint);
    const revoked = [];
    let failure;
    for (const id of records) {
        if (id === keep)
            continue;
        try {
            await client.revokeKey(apiKey, id);
            revoked.push(id);
        }
        catch (error) {
            failure ??= error;
        }
    }
    if (failure !== undefined)
        throw failure;
    return revoked;
}
function liveRecordsOf(raw, fingerprint) {
    const keys = typeof raw === 'object' && raw !== null ? raw.keys : undefined;
    if (!Array.isArray(keys))
        throw unusableList('it holds no keys list');
    const ids = [];
    for (const entry of keys) {
        if (typeof entry !== 'object' || entry === null)
            continue;
        const record = entry;
        if (typeof record.fingerprint !== 'string' || !sameFingerprint(record.fingerprint, fingerprint))
            continue;
        if (typeof record.status === 'string' && DEAD_STATUSES.has(record.status))
            continue;
        const id = readKeyId({ key_id: record.id });
        if (id === undefined)
            throw unusableList('a record of this key has no usable id');
        ids.push(id);
    }
    return ids;
}
function unusableList(why) {
    return new errors/* ExplainedError */.h(`the service's user-keys-list answer is unusable: ${why}`);
}
function revokeByHand(fingerprint, name) {
    return (`a key with fingerprint ${fingerprint}${name ? ` and name "${name}"` : ''} may still be active: ` +
        'find it in the service dashboard or with GET user-keys-list, and revoke it (POST revoke-ssh-key ' +
        `with its id) using the same ${option_facts/* API_KEY_OPTION */.$n}`);
}

;// CONCATENATED MODULE: ./core/kinds/upload-key.ts





const KEY_LIFETIME_DAYS = 1;
async function uploadKeySettled(client, settings, pair, name, context) {
    let retried = false;
    let raw;
    const settle = (keep) => settleRecords(client, settings.apiKey, pair.fingerprint, name, keep, context);
    try {
        raw = await client.uploadKey({
            apiKey: settings.apiKey,
            publicKeyLine: pair.publicKeyLine,
            name,
            expiresInDays: KEY_LIFETIME_DAYS,
            clientId: settings.clientId,
            onRetry: () => (retried = true)
        });
    }
    catch (error) {
        if ((!retried && refusedOutright(error)) || (await settle()))
            clearSavedQuietly(context);
        throw error;
    }
    const keyId = readKeyId(raw);
    if (keyId === undefined) {
        const settled = await settle();
        if (settled)
            clearSavedQuietly(context);
        throw invalidUpload('key_id is missing or not a plain identifier, so the key cannot be revoked by its id; ' +
            (settled
                ? 'every record of the key the service lists was revoked instead'
                : revokeByHand(pair.fingerprint, name)));
    }
    return { raw, keyId, mayHaveCopies: retried && !(await settle(keyId)) };
}
function refusedOutright(error) {
    const cause = error instanceof retry/* AttemptsExhausted */.Q0 || error instanceof retry/* RetryAfterTooLong */.Zt ? error.cause : error;
    return (cause instanceof client/* ServiceError */._7 &&
        cause.kind === 'http' &&
        cause.status !== undefined &&
        cause.status >= 400 &&
        cause.status < 500 &&
        cause.status !== 408);
}
async function settleRecords(client, apiKey, fingerprint, name, keep, { log, explain }) {
    try {
        const revoked = await revokeKeyRecords(client, apiKey, fingerprint, keep);
        if (revoked.length > 0) {
            log.info(`Revoked ${revoked.length} ${keep ? 'other ' : ''}record${revoked.length === 1 ? '' : 's'} ` +
                `of the key ${fingerprint} that an upload whose answer was lost had stored (${revoked.join(', ')}).`);
        }
        return true;
    }
    catch (error) {
        log.warning(`Could not look up or revoke the records of the uploaded key (${error instanceof errors/* ExplainedError */.h ? error.message : explain(error)}). ` +
            `Until revoking when the job ends has looked again, ${revokeByHand(fingerprint, name)}.`);
        return false;
    }
}
function clearSavedQuietly({ clearSaved }) {
    try {
        clearSaved();
    }
    catch {
    }
}

;// CONCATENATED MODULE: ./core/kinds/ssh-key.ts



















const SSH_KEY_LOGIN = {
    kind: 'ssh-key',
    userOption: 'client-id',
    whatTheUserIs: 'the tunnel user (client id) the uploaded key logs in as',
    userChangeable: true,
    whyTheHost: "the key upload answer names no tunnel server, so set it to the tunnel server's hostname."
};
function refuseTtlMinutes(options) {
    const raw = options.read('ttl-minutes');
    if (!raw.trim())
        return;
    throw new errors/* ExplainedError */.h(`${(0,option_values/* optionNamed */.b7)(options, 'ttl-minutes')} is ${(0,quote/* quote */.h)(raw)}, but credential "ssh-key" cannot use it: the service sets an uploaded key's lifetime in whole days, so the key is uploaded for ${KEY_LIFETIME_DAYS} day and revoked when the job ends. Remove ${options.label('ttl-minutes')}, or use credential "cicd" for a lifetime in minutes.`);
}
const sshKeyKind = {
    readSettings(options, common) {
        refuseTtlMinutes(options);
        const apiKey = readApiKey(options, 'ssh-key');
        const login = readSelfNamedLogin(options, SSH_KEY_LOGIN);
        const baseUrl = readBaseUrl(options);
        return { ...common, kind: 'ssh-key', apiKey, clientId: login.knownUser.name, baseUrl, ...login };
    },
    sendsRequests: true,
    revocation: 'revoke',
    async obtain(settings, context) {
        const { service, log, save, publish, tempRoot, run } = context;
        const name = keyNameFor(run);
        const pair = generateSshKeyPair(name);
        log.info(`Uploading a new ed25519 SSH key "${name}" (${pair.fingerprint}) for tunnel user ` +
            `${settings.clientId} to ${settings.baseUrl}`);
        const client = service();
        const pending = {
            kind: 'ssh-key',
            fingerprint: pair.fingerprint,
            keyName: name,
            baseUrl: settings.baseUrl,
            rejected: true
        };
        save(pending);
        const { raw, keyId, mayHaveCopies } = await uploadKeySettled(client, settings, pair, name, context);
        const { rejected: _pending, ...uploaded } = pending;
        const issued = { ...uploaded, keyId, ...(mayHaveCopies && { mayHaveCopies }) };
        let keyFolder;
        try {
            save({ ...issued, rejected: true });
            const uploaded = parseUploadedKey(raw);
            if (!sameFingerprint(uploaded.fingerprint, pair.fingerprint)) {
                throw new errors/* ExplainedError */.h(`The credential service answered keys-upload with the fingerprint ${uploaded.fingerprint}, ` +
                    `but the key this step made and sent has ${pair.fingerprint}: the service did not store ` +
                    'the key that was sent. Nothing was exported. Check that base-url points at the ' +
                    'credential service; if it does, report this to the service operator.');
            }
            const accepted = {
                ...issued,
                ...(uploaded.expiresAt && { expiresAt: uploaded.expiresAt })
            };
            save(accepted);
            keyFolder = createKeyFolder(tempRoot);
            save({ ...accepted, keyFolder: keyFolder.path, keyFolderId: keyFolder.id });
            const keyFile = writeKeyFile(keyFolder.path, pair.privateKeyFile);
            const obtained = sshKeyObtained(settings, name, keyId, pair.fingerprint, keyFile, uploaded);
            await publish(obtained);
            return obtained;
        }
        catch (error) {
            if (keyFolder)
                deleteKeyFolder(keyFolder, context, log);
            await revokeUnused(`the uploaded SSH key ${pair.fingerprint} (id ${keyId})`, async () => {
                await client.revokeKey(settings.apiKey, keyId);
                if (mayHaveCopies)
                    await revokeKeyRecords(client, settings.apiKey, pair.fingerprint);
            }, context);
            throw error;
        }
    },
    readSaved: readSavedSshKey,
    async revoke(saved, context) {
        const { settings, service, log } = context;
        try {
            if (!shouldRevoke(settings, saved)) {
                if (saved.mayHaveCopies && settings.apiKey) {
                    await revokeOtherRecords(service(), saved, { settings, log }, saved.keyId);
                }
                log.info(`Not revoking ${describeKey(saved)}: ${settings.optionLabel('revoke')} is false.${expiryNote(saved)}`);
                return 'kept';
            }
            requireRevokeApiKey(settings);
            const client = service();
            const outcome = saved.keyId ? await client.revokeKey(settings.apiKey, saved.keyId) : undefined;
            if (saved.keyId === undefined || saved.mayHaveCopies) {
                await revokeOtherRecords(client, saved, { settings, log });
            }
            if (outcome !== undefined) {
                log.info(outcome === 'revoked'
                    ? `Revoked ${describeKey(saved)}.`
                    : `${(0,option_values/* capitalised */.Iu)(describeKey(saved))} was already revoked or deleted (404); nothing left to do.`);
            }
            else {
                log.info(`No record of ${describeKey(saved)} is left active.`);
            }
            return 'revoked';
        }
        finally {
            if (saved.keyFolder) {
                deleteKeyFolder({ path: saved.keyFolder, id: saved.keyFolderId }, context, log);
            }
        }
    },
    describe: describeKey
};
function describeKey(saved) {
    const id = saved.keyId === undefined ? '' : ` (id ${(0,printable/* printable */.g$)(saved.keyId)})`;
    return `the SSH key ${(0,printable/* printable */.g$)(saved.fingerprint)}${id}`;
}
async function revokeOtherRecords(client, saved, { settings, log }, keep) {
    try {
        const revoked = await revokeKeyRecords(client, settings.apiKey, saved.fingerprint, keep);
        if (revoked.length > 0) {
            log.info(`Revoked ${revoked.length} record${revoked.length === 1 ? '' : 's'} of ${describeKey(saved)} ` +
                `found by its fingerprint (${revoked.join(', ')}).`);
        }
    }
    catch (error) {
        const why = error instanceof errors/* ExplainedError */.h
            ? error.message
            : explainFailure(error, { baseUrl: settings.baseUrl ?? '', nowMs: Date.now() });
        const hint = revokeByHand((0,printable/* printable */.g$)(saved.fingerprint), saved.keyName && (0,printable/* printable */.g$)(saved.keyName));
        throw new errors/* ExplainedError */.h(`${why} So ${hint}.`);
    }
}
function deleteKeyFolder(folder, { tempRoot, tempRootName }, log) {
    const path = (0,printable/* printable */.g$)(folder.path, 200);
    if (!isKeyFolder(folder.path, tempRoot)) {
        log.warning(`Not deleting ${path}: saved state names it as the key folder, but it is not a folder this tool makes under ${tempRootName}.`);
        return;
    }
    try {
        const refused = removeKeyFolder(folder);
        if (refused !== undefined) {
            log.warning(`Not deleting anything in the key folder ${path}: ${refused}. Something other than this tool changed it; check what it points to.`);
            return;
        }
        log.info(`Deleted the private key file and its folder ${path}.`);
    }
    catch (error) {
        log.warning(`Could not delete the private key folder ${path}: ${(0,describe_error/* describeUnexpected */.V)(error)}. ` +
            'On a self-hosted runner, delete it by hand.');
    }
}

;// CONCATENATED MODULE: ./core/kinds/registry.ts





const credentialKinds = {
    cicd: cicdKind,
    free: freeKind,
    'ssh-key': sshKeyKind,
    existing: existingKind
};

function credentialKind(kind) {
    return credentialKinds[kind];
}
function obtainCredential(settings, context) {
    return credentialKind(settings.kind).obtain(settings, context);
}
function revokeSavedCredential(saved, context) {
    return credentialKind(saved.kind).revoke(saved, context);
}
function describeCredential(saved) {
    return credentialKind(saved.kind).describe(saved);
}
function readSavedCredential(kind, value) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
        return undefined;
    return credentialKind(kind).readSaved(value);
}

;// CONCATENATED MODULE: ./core/saved-credential.ts

const CREDENTIAL = 'credential';
function saveCredential(state, saved) {
    state.save(CREDENTIAL, JSON.stringify(saved));
}
function clearCredential(state) {
    state.save(CREDENTIAL, '');
}
function hasSavedCredential(state) {
    return state.load(CREDENTIAL) !== '';
}
function loadCredential(state, kind) {
    const raw = state.load(CREDENTIAL);
    if (!raw)
        return undefined;
    try {
        return readSavedCredential(kind, JSON.parse(raw));
    }
    catch {
        return undefined;
    }
}
function recordedKind(state) {
    try {
        const { kind } = JSON.parse(state.load(CREDENTIAL));
        return KIND_NAMES.includes(kind) ? kind : undefined;
    }
    catch {
        return undefined;
    }
}

;// CONCATENATED MODULE: ./core/service/factory.ts

function createService(baseUrl, http, clock, log) {
    return new client/* CredentialService */.fA({
        baseUrl,
        maxAttempts: http.maxAttempts,
        timeoutSeconds: http.timeoutSeconds,
        ...(http.ca !== undefined && { ca: http.ca }),
        sleep: clock.sleep,
        random: clock.random,
        now: clock.now,
        onRetry: ({ attempt, maxAttempts, delayMs, error }) => log.info(`Attempt ${attempt} of ${maxAttempts} failed (${error instanceof Error ? error.message : 'unknown error'}); ` +
            `retrying in ${(delayMs / 1000).toFixed(1)} s.`)
    });
}

;// CONCATENATED MODULE: ./core/assembly/choice.ts





function readKindChoice(options) {
    const raw = options.read('credential');
    const value = raw.trim().toLowerCase() || 'cicd';
    const apiKey = options.read(option_facts/* API_KEY_OPTION */.$n).trim();
    if (value === 'auto')
        return { kind: apiKey ? 'cicd' : 'free', auto: true };
    if (KIND_NAMES.includes(value))
        return { kind: value, auto: false };
    const choices = [...KIND_NAMES.slice(0, 2), 'auto', ...KIND_NAMES.slice(2)];
    throw new errors/* ExplainedError */.h(`${(0,option_values/* optionNamed */.b7)(options, 'credential')} is ${(0,quote/* quote */.h)(raw)}: expected one of ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}.`);
}

;// CONCATENATED MODULE: ./core/settings/input-text.ts




const MULTI_LINE_INPUTS = new Set(option_facts/* MULTI_LINE_OPTION_NAMES */.mO);
const SECRET_INPUTS = new Set(option_facts/* SECRET_OPTION_NAMES */.w$);
const FORBIDDEN = /[\p{Cc}\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\p{Cs}/u;
const FORBIDDEN_IN_LIST_LINE = /(?!\t)[\p{Cc}\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\p{Cs}/u;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
function checkedOptions(options) {
    return {
        read: name => {
            const value = options.read(name);
            checkOptionText(options, name, value);
            return value;
        },
        label: name => options.label(name)
    };
}
function checkOptionText(options, name, value) {
    if (PRINTABLE_ASCII.test(value))
        return;
    if (!MULTI_LINE_INPUTS.has(name)) {
        const at = value.search(FORBIDDEN);
        if (at !== -1)
            throw badText((0,option_values/* optionNamed */.b7)(options, name), SECRET_INPUTS.has(name), value, at);
        return;
    }
    const lines = value.split(/\r?\n/);
    for (const [index, line] of lines.entries()) {
        const at = line.search(FORBIDDEN_IN_LIST_LINE);
        if (at !== -1)
            throw badText((0,option_values/* optionNamed */.b7)(options, name), false, line, at, index + 1);
    }
}
function badText(label, secret, text, at, line) {
    const kind = describeCharacter(text, at);
    if (secret) {
        return new errors/* ExplainedError */.h(`${label} holds ${kind}: check that the secret holds the value alone, on one line, with nothing pasted around it.`);
    }
    const what = line === undefined ? `${label} is` : `${label}, line ${line}, is`;
    const advice = line === undefined
        ? 'Set it to a single line of plain text.'
        : 'Write each entry as plain text on a line of its own.';
    return new errors/* ExplainedError */.h(`${what} ${(0,quote/* quote */.h)(text)}: it holds ${kind} at character ${at + 1}. ${advice}`);
}
function describeCharacter(text, at) {
    const code = text.charCodeAt(at);
    const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
    if (code === 0x0a || code === 0x0d || code === 0x85 || code === 0x2028 || code === 0x2029) {
        return `a line break (${hex})`;
    }
    if (code >= 0xd800 && code <= 0xdfff)
        return `an unpaired UTF-16 surrogate (${hex})`;
    if (code <= 0x9f)
        return `a control character (${hex})`;
    return `a bidirectional text control (${hex})`;
}

;// CONCATENATED MODULE: ./core/assembly/read-main.ts




function readMainSettings(source) {
    const options = checkedOptions(source);
    const { kind, auto } = readKindChoice(options);
    return credentialKind(kind).readSettings(options, readCommonSettings(options), { auto });
}

;// CONCATENATED MODULE: ./core/share/share-mode.ts



const SHARE_MODES = ['off', 'create', 'use', 'revoke'];
function readShareMode(options) {
    const raw = options.read('share');
    const value = raw.trim().toLowerCase() || 'off';
    if (SHARE_MODES.includes(value))
        return value;
    throw new errors/* ExplainedError */.h(`${(0,option_values/* optionNamed */.b7)(options, 'share')} is ${(0,quote/* quote */.h)(raw)}: expected one of ${SHARE_MODES.slice(0, -1).join(', ')} or ${SHARE_MODES.at(-1)}.`);
}

;// CONCATENATED MODULE: ./core/share/share-plan.ts




const NOT_SHAREABLE = {
    free: 'a free credential has no API key to seal it with',
    'ssh-key': 'sharing it would put a private key in the output',
    existing: 'an existing credential is already yours to pass on'
};
function readSharePlan(options, choice, scope) {
    const mode = readShareMode(options);
    const blob = options.read('shared-credential').trim();
    if (mode === 'off') {
        return blob === ''
            ? { mode }
            : {
                mode,
                warning: `${(0,option_values/* optionNamed */.b7)(options, 'shared-credential')} is set, but ${options.label('share')} is off, so it is ignored and this job provisions a credential of its own. To open it, set ${options.label('share')} to use.`
            };
    }
    const share = `${(0,option_values/* optionNamed */.b7)(options, 'share')} is ${mode}`;
    if (choice.auto && choice.kind === 'free') {
        const why = `${options.label(option_facts/* API_KEY_OPTION */.$n)} is empty (as in a pull request from a fork), and sharing needs the API key`;
        if (mode !== 'revoke') {
            return {
                mode: 'off',
                notice: `Not sharing: ${why}. ${(0,option_values/* capitalised */.Iu)(options.label('credential'))} is auto, so this job uses its own free credential.`
            };
        }
        if (blob === '') {
            return {
                mode,
                notice: `Nothing to revoke: ${options.label('shared-credential')} is empty, so the setup job shared nothing; ${options.label(option_facts/* API_KEY_OPTION */.$n)} is empty too (as in a pull request from a fork).`
            };
        }
        throw new errors/* ExplainedError */.h(`${share}, but ${why} to open ${options.label('shared-credential')}. Pass the API key to this job.`);
    }
    if (choice.kind !== 'cicd') {
        throw new errors/* ExplainedError */.h(`${share}, which works only with ${options.label('credential')} cicd: ${NOT_SHAREABLE[choice.kind]}. Set ${options.label('share')} to off.`);
    }
    if (scope === undefined) {
        throw new errors/* ExplainedError */.h(`${share}, but sharing works on GitHub Actions and GitLab CI, where every job sees the run's identity; set ${options.label('share')} to off.`);
    }
    if (mode === 'create') {
        if (options.read('ttl-minutes').trim() === '') {
            throw new errors/* ExplainedError */.h(`${share}, which needs ${options.label('ttl-minutes')}: a shared credential lives for the run, so it must expire. Set it to the run's longest duration in minutes.`);
        }
        return blob === ''
            ? { mode, scope }
            : {
                mode,
                scope,
                warning: `${(0,option_values/* optionNamed */.b7)(options, 'shared-credential')} is ignored: ${options.label('share')} create provisions the run's credential rather than open one.`
            };
    }
    if (options.read(option_facts/* API_KEY_OPTION */.$n).trim() === '') {
        throw new errors/* ExplainedError */.h(`${share}, which needs ${options.label(option_facts/* API_KEY_OPTION */.$n)}: the shared credential opens only with the API key it was sealed with. Pass the same secret as the setup job.`);
    }
    if (mode === 'revoke' && blob === '') {
        return {
            mode,
            notice: `Nothing to revoke: ${options.label('shared-credential')} is empty, so the setup job shared nothing (it failed before it shared a credential, or did not run).`
        };
    }
    if (mode === 'use' && blob === '') {
        const given = options.label('shared-credential');
        throw new errors/* ExplainedError */.h(`${share}, but ${given} is empty, so there is nothing to open: the setup job shared nothing. Check that this job has the setup job in its needs and that ${given} gets that job's shared-credential output: on GitHub Actions \${{ needs.<setup job>.outputs.shared-credential }}, on GitLab CI the setup job's dotenv report (shared.env), which sets SVC_SHARED_CREDENTIAL in every job that needs it.`);
    }
    return mode === 'use' ? { mode, scope, blob } : { mode, scope, blob };
}

;// CONCATENATED MODULE: ./core/share/open-shared.ts






function openSharedCredential(plan, settings, { mask, options }) {
    if (settings.kind !== 'cicd')
        throw new Error(`share ${plan.mode} reached kind ${settings.kind}`);
    let payload;
    try {
        payload = openSealedCredential(plan.blob, settings.apiKey, {
            system: plan.scope.system,
            repository: plan.scope.repository,
            runId: plan.scope.runId,
            project: settings.project
        });
    }
    catch (error) {
        if (error instanceof ShareRefusal)
            throw new errors/* ExplainedError */.h(error.message);
        throw error;
    }
    mask((0,answer_secrets/* secretsIn */.V)(payload));
    const sealedBaseUrl = payloadBaseUrl(payload);
    if (sealedBaseUrl !== settings.baseUrl) {
        throw new errors/* ExplainedError */.h(`The shared credential comes from the credential service at ${(0,printable/* printable */.g$)(sealedBaseUrl ?? 'an unnamed address', 200)}, but ${options.label('base-url')} is ${settings.baseUrl}. ` +
            `The API key goes only to ${options.label('base-url')}: set the same base-url in every job of the run.`);
    }
    const credential = (0,service_credential/* parseCredential */.n)(payload, settings);
    return { credential, settings };
}

;// CONCATENATED MODULE: ./core/share/revoke-shared.ts






async function revokeSharedCredential(plan, readSettings, host) {
    const { log, clock, options } = host;
    if ('notice' in plan) {
        log.notice(plan.notice);
        return;
    }
    const { credential, settings } = openSharedCredential(plan, readSettings(), host);
    if (settings.tunnel) {
        log.warning(`${(0,option_values/* optionNamed */.b7)(options, 'expose')} is ignored: ${options.label('share')} revoke opens no tunnel, it only revokes the run's credential.`);
    }
    const user = credential.tunnelUser;
    const service = createService(settings.baseUrl, settings.http, clock, log);
    let outcome;
    try {
        outcome = await service.revokeCredential(settings.apiKey, user);
    }
    catch (error) {
        const reason = explainFailure(error, {
            baseUrl: settings.baseUrl,
            nowMs: clock.now(),
            label: name => options.label(name)
        });
        if ((0,iso_time/* hasExpired */.o)(credential.expiresAt, clock.now())) {
            log.info(`Could not revoke the run's shared credential (tunnel user ${user}): ${reason} It expired at ${credential.expiresAt}, so it is no longer valid anyway.`);
            return;
        }
        throw new errors/* ExplainedError */.h(`Could not revoke the run's shared credential (tunnel user ${user}): ${reason} It stays valid until ${credential.expiresAt ?? 'its expiry'}; run this job again to retry.`);
    }
    log.info(outcome === 'revoked'
        ? `Revoked the run's shared credential (tunnel user ${user}).`
        : `The run's shared credential (tunnel user ${user}) was already revoked or has expired (404); nothing left to do.`);
}

// EXTERNAL MODULE: ./core/service/service-error.ts
var service_error = __nccwpck_require__(838);
;// CONCATENATED MODULE: ./core/share/refused-login.ts



async function askTokenStanding(service, apiKey, tunnelUser) {
    let tokens;
    try {
        tokens = await service.listTokens(apiKey);
    }
    catch (error) {
        return { state: 'unknown', why: whyUnknown(error) };
    }
    const active = tokens.some(token => token.tunnelUser === tunnelUser && token.status === 'active');
    return { state: active ? 'active' : 'gone' };
}
const REVOKED_ADVICE = 'the shared credential was revoked (the final job of an earlier attempt may have revoked it): re-run all jobs';
function explainRefusedSharedLogin(standing, detail, label = name => name) {
    const refused = `The tunnel did not start: ${(0,printable/* printable */.g$)(detail, 400)}.`;
    const oneSession = `this server allows one session per credential: set ${label('share')} to off`;
    switch (standing.state) {
        case 'gone':
            return `${refused} The service no longer lists the token as active: ${REVOKED_ADVICE}, so that the setup job shares a new credential.`;
        case 'active':
            return `${refused} The service lists the token as active, so ${oneSession}, and each job provisions its own credential.`;
        case 'unknown':
            return (`${refused} The service could not tell whether the token is still active (${standing.why}), so it is one of two causes: ` +
                `${REVOKED_ADVICE}; or ${oneSession}.`);
    }
}
function whyUnknown(given) {
    const error = given instanceof Error && given.cause instanceof service_error/* ServiceError */._ ? given.cause : given;
    if (!(error instanceof service_error/* ServiceError */._))
        return (0,describe_error/* describeUnexpected */.V)(error);
    const scope = error.status === 403 && !error.message.includes('scope')
        ? '; the API key may lack the token:read scope'
        : '';
    return `user-tokens-list: ${(0,printable/* printable */.g$)(error.message, 200)}${scope}`;
}

// EXTERNAL MODULE: ./core/tunnel/main/start-failure.ts
var start_failure = __nccwpck_require__(956);
;// CONCATENATED MODULE: ./core/share/use-failure.ts



async function explainUseFailure(error, context) {
    if (!(error instanceof start_failure/* TunnelStartError */.N) || error.failure !== 'auth')
        return error;
    const lister = { listTokens: (apiKey) => context.service().listTokens(apiKey) };
    const standing = await askTokenStanding(lister, context.apiKey, context.tunnelUser);
    return new errors/* ExplainedError */.h(explainRefusedSharedLogin(standing, error.detail, context.label));
}

;// CONCATENATED MODULE: ./core/share/use-shared.ts





function checkUsable({ credential }, options, now) {
    if (credential.expiresAt === undefined) {
        throw new errors/* ExplainedError */.h('The shared credential names no expiry, which the setup job never shares: pass its shared-credential output unchanged.');
    }
    if ((0,iso_time/* hasExpired */.o)(credential.expiresAt, now)) {
        throw new errors/* ExplainedError */.h(`The shared credential expired at ${credential.expiresAt}: the run outlived ${options.label('ttl-minutes')}. Re-run all jobs with a longer ${options.label('ttl-minutes')} in the setup job.`);
    }
}
async function useSharedCredential({ credential, settings }, context, label) {
    const { tunnelUser, tunnelHost, tunnelPort, expiresAt } = credential;
    const obtained = {
        ...tokenObtained(credential, { kind: 'cicd', label: 'cicd, shared by the run', verb: 'Using' }, settings),
        announcement: `Using the shared credential of tunnel user ${tunnelUser} for ${tunnelHost}:${tunnelPort}, valid until ${expiresAt}.`
    };
    if (!settings.tunnel)
        await checkStillActive(tunnelUser, settings.apiKey, context);
    context.save({ ...savedTokenOf('cicd', credential, settings.baseUrl), shared: true });
    try {
        await context.publish(obtained);
    }
    catch (error) {
        context.clearSaved();
        throw await explainUseFailure(error, {
            tunnelUser,
            apiKey: settings.apiKey,
            service: context.service,
            ...(label && { label })
        });
    }
    return obtained;
}
async function checkStillActive(tunnelUser, apiKey, { service, log }) {
    const lister = { listTokens: (key) => service().listTokens(key) };
    const standing = await askTokenStanding(lister, apiKey, tunnelUser);
    if (standing.state === 'gone') {
        throw new errors/* ExplainedError */.h(`The service no longer lists the token of tunnel user ${tunnelUser} as active: ${REVOKED_ADVICE}, so that the setup job shares a new credential. Nothing was exported.`);
    }
    if (standing.state === 'unknown') {
        log.info(`Could not ask the service whether the shared credential is still active (${standing.why}); using it as the setup job shared it.`);
    }
}

;// CONCATENATED MODULE: ./core/options/output-facts.ts
const OUTPUTS = [
    {
        name: 'token',
        secret: true,
        description: 'The tunnel token (masked in logs). For a free credential, the client secret. Empty for `ssh-key`.'
    },
    {
        name: 'tunnel-user',
        secret: false,
        description: 'The tunnel user. For a free credential, the client id; for `ssh-key`, the `client-id` input.'
    },
    { name: 'client-id', secret: false, description: 'The client id the service returned.' },
    { name: 'tunnel-host', secret: false, description: 'Host of the tunnel server.' },
    { name: 'tunnel-port', secret: false, description: 'SSH port of the tunnel server.' },
    {
        name: 'expires-at',
        secret: false,
        description: 'When the credential or SSH key expires (ISO 8601 UTC); empty when unknown.'
    },
    { name: 'ttl-minutes', secret: false, description: 'The TTL the service applied, in minutes.' },
    { name: 'project-slug', secret: false, description: 'The project the credential is bound to.' },
    {
        name: 'key-id',
        secret: false,
        description: 'For `ssh-key`: the id of the uploaded key, as `revoke-ssh-key` and `user-keys-list` name it.'
    },
    {
        name: 'key-fingerprint',
        secret: false,
        description: "For `ssh-key`: the key's fingerprint, `SHA256:\u2026`, as `ssh-keygen -l` prints it."
    },
    {
        name: 'key-file',
        secret: false,
        description: 'For `ssh-key`: path of the private key file (OpenSSH format, mode 0600) under `RUNNER_TEMP`; deleted in post.'
    },
    {
        name: 'credential',
        secret: false,
        description: 'The kind that was used, `cicd`, `free`, `ssh-key` or `existing`.'
    },
    {
        name: 'shared-credential',
        secret: false,
        description: 'With `share: create`: the credential, sealed for the other jobs of this run (pass it as a job output to their `shared-credential` input). Not a secret: opening it needs `api-key`. Empty otherwise.'
    },
    { name: 'url', secret: false, description: 'With `expose`, the public URL of the first entry.' },
    {
        name: 'urls',
        secret: false,
        description: 'With `expose`, a JSON object of every entry\'s public URL by name, such as `{"web":"https://web-u1.tunnel.example"}`.'
    },
    {
        name: 'request-log',
        secret: false,
        description: "With `expose` and `log-requests`, the path of the request log: a HAR 1.2 file, which browsers' DevTools open, in `RUNNER_TEMP` beside the tunnel's folder (post removes the folder, not the log). It is complete at any moment after this step, so an `actions/upload-artifact` step with `if: always()` uploads a file that opens."
    },
    {
        name: 'protect-secret',
        secret: true,
        description: 'With `protect`, the per-run secret every request must carry (masked in logs).'
    },
    {
        name: 'protect-header',
        secret: true,
        description: "With `protect`, the full header line that carries the secret, `X-Tunnel-Gate: \u2026`, for `curl -H` and API tests; it leaves the app's own `Authorization` free. Not for browsers: Playwright's `extraHTTPHeaders` sends it to every origin a page loads from (masked in logs)."
    },
    {
        name: 'protect-urls',
        secret: true,
        description: "With `protect`, a JSON object of every entry's URL by name with the secret as `user:secret@` credentials, for browsers and Selenium: the first page gets a per-run cookie and reopens without the secret, so the app's own `fetch()` calls work (masked in logs)."
    },
    {
        name: 'protect-webhook-urls',
        secret: true,
        description: "With `protect`, a JSON object of every entry's URL by name with the secret in its path, for webhook senders that take only a URL; the app sees the request as if it had none (masked in logs)."
    }
];
const SECRET_OUTPUT_NAMES = OUTPUTS.filter(o => o.secret).map(o => o.name);

;// CONCATENATED MODULE: ./core/secret-outputs.ts

function recordingMasks(host) {
    const masked = new Set();
    return {
        host: {
            ...host,
            mask: secrets => {
                for (const secret of secrets)
                    masked.add(secret);
                host.mask(secrets);
            }
        },
        masked
    };
}
function unmaskedSecretOutputs(outputs, masked) {
    const secrets = [...masked].filter(secret => secret !== '');
    return SECRET_OUTPUT_NAMES.map(name => outputs[name] ?? '').filter(value => value !== '' && !secrets.some(secret => value.includes(secret)));
}

// EXTERNAL MODULE: ./core/options/tunnel-options.ts
var tunnel_options = __nccwpck_require__(578);
;// CONCATENATED MODULE: ./core/settings/without-expose.ts


function normalised(name, value) {
    const text = value.trim();
    if (name === 'url-template' || name === 'tunnel-host-key')
        return text;
    if (name === 'log-bodies' && /^\d+$/.test(text))
        return String(Number(text));
    return text.toLowerCase();
}
function tunnelOptionsSetWithoutExpose(options) {
    return tunnel_options/* TUNNEL_OPTIONS */.u.filter(option => option.name !== 'expose')
        .filter(option => {
        const value = normalised(option.name, options.read(option.name));
        return value !== '' && value !== normalised(option.name, option.default);
    })
        .map(option => option.name);
}
function withoutExposeWarning(options) {
    const names = tunnelOptionsSetWithoutExpose(options).map(name => options.label(name));
    if (names.length === 0)
        return undefined;
    const listed = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
    const verb = names.length === 1 ? 'does' : 'do';
    return `${(0,option_values/* capitalised */.Iu)(listed)} ${verb} nothing without ${options.label('expose')}: no tunnel is opened in this step, so ${names.length === 1 ? 'it is' : 'they are'} ignored.`;
}

;// CONCATENATED MODULE: ./core/step-writes.ts

function environmentFor(obtained, prefix) {
    return Object.fromEntries(Object.entries(obtained.env).map(([name, value]) => [`${prefix}_${name}`, value]));
}
function writesFor(obtained, settings) {
    return {
        variables: settings.exportEnv ? environmentFor(obtained, settings.envPrefix) : {},
        outputs: { ...obtained.outputs },
        summary: [
            {
                heading: 'Tunnel credentials',
                columns: ['Field', 'Value'],
                rows: obtained.summary.filter(([, value]) => value)
            }
        ]
    };
}
const SUMMARY_VALUE_MAX = 500;
function withPrintableSummary(writes) {
    return {
        ...writes,
        summary: writes.summary.map(table => ({
            ...table,
            ...(table.lines && { lines: table.lines.map(line => (0,printable/* printable */.g$)(line, SUMMARY_VALUE_MAX)) }),
            rows: table.rows.map(row => row.map((cell, index) => (0,printable/* printable */.g$)(cell, index === 0 ? 100 : SUMMARY_VALUE_MAX)))
        }))
    };
}

// EXTERNAL MODULE: ./core/tunnel/main/urls.ts
var urls = __nccwpck_require__(845);
;// CONCATENATED MODULE: ./core/provision.ts



















async function provision(givenHost) {
    const { host, masked } = recordingMasks(givenHost);
    const { options, log, clock, state } = host;
    host.mask(option_facts/* SECRET_OPTION_NAMES */.w$.map(name => options.read(name)).filter(Boolean));
    let baseUrl = (0,printable/* printable */.g$)(options.read('base-url'));
    let project;
    let sharing = givenHost.shareScope === undefined ? 'not-here' : 'possible';
    try {
        const checked = checkedOptions(options);
        const share = readSharePlan(checked, readKindChoice(checked), host.shareScope);
        if (share.mode === 'create')
            sharing = 'this-step';
        if (share.mode === 'off' && share.notice !== undefined)
            log.notice(share.notice);
        if ('warning' in share && share.warning !== undefined)
            log.warning(share.warning);
        if (share.mode === 'revoke') {
            await revokeSharedCredential(share, () => readMainSettings(options), host);
            return { status: 'shared-revoked' };
        }
        const settings = readMainSettings(options);
        const opened = share.mode === 'use' ? openSharedCredential(share, settings, host) : undefined;
        if (opened)
            checkUsable(opened, options, clock.now());
        if (!settings.tunnel) {
            const ignored = withoutExposeWarning(options);
            if (ignored !== undefined)
                log.warning(ignored);
        }
        if ('baseUrl' in settings)
            baseUrl = settings.baseUrl;
        if ('project' in settings)
            project = settings.project;
        (0,urls/* checkUrlsBeforeRequest */.xX)(settings);
        const tunnel = settings.tunnel
            ? (await __nccwpck_require__.e(/* import() */ 739).then(__nccwpck_require__.bind(__nccwpck_require__, 739))).prepareTunnel(settings.tunnel, host)
            : undefined;
        try {
            const context = {
                service: () => {
                    if (!('baseUrl' in settings))
                        throw new Error(`credential ${settings.kind} sends no request`);
                    return createService(settings.baseUrl, settings.http, clock, log);
                },
                log,
                mask: secrets => host.mask(secrets),
                save: saved => saveCredential(state, saved),
                clearSaved: () => clearCredential(state),
                publish: async (obtained) => {
                    const writes = writesFor(obtained, settings);
                    if (tunnel)
                        await tunnel.open(obtained.login, settings, writes);
                    const exported = Object.keys(writes.variables);
                    const missed = unmaskedSecretOutputs(writes.outputs, masked);
                    if (missed.length > 0)
                        host.mask(missed);
                    try {
                        host.handOver(withPrintableSummary(writes));
                    }
                    catch (error) {
                        await tunnel?.close();
                        throw new errors/* ExplainedError */.h(`Could not hand the credential to later steps: ${(0,describe_error/* describeUnexpected */.V)(error)}. Nothing was handed out, and the credential is revoked rather than left unused.`);
                    }
                    log.info(`${obtained.announcement}${exported.length > 0 ? ` Exported ${listExported(exported, settings.envPrefix)}.` : ''}`);
                },
                explain: error => explainFailure(error, {
                    baseUrl,
                    project,
                    nowMs: clock.now(),
                    label: name => options.label(name),
                    sharing
                }),
                tempRoot: host.tempRoot,
                tempRootName: host.tempRootName,
                run: host.run,
                ...(share.mode === 'create' && {
                    shareForRun: { scope: share.scope, label: name => options.label(name) }
                })
            };
            await (opened
                ? useSharedCredential(opened, context, name => options.label(name))
                : obtainCredential(settings, context));
        }
        finally {
            await tunnel?.stopUnused();
        }
        return { status: 'provisioned' };
    }
    catch (error) {
        return {
            status: 'failed',
            message: error instanceof errors/* ExplainedError */.h
                ? error.message
                : explainFailure(error, {
                    baseUrl,
                    project,
                    nowMs: clock.now(),
                    label: name => options.label(name),
                    sharing
                })
        };
    }
}
function listExported(names, prefix) {
    const [first, ...rest] = names;
    const start = `${prefix}_TUNNEL`;
    const short = rest.map(name => (name.startsWith(`${start}_`) ? name.slice(start.length) : name));
    if (short.length === 0)
        return first;
    return `${[first, ...short.slice(0, -1)].join(', ')} and ${short.at(-1)}`;
}

;// CONCATENATED MODULE: ./cli/private-file.ts



function writePrivateFile(path, text) {
    const temporary = (0,external_node_path_.join)((0,external_node_path_.dirname)(path), `.${(0,external_node_path_.basename)(path)}.${(0,external_node_crypto_.randomBytes)(6).toString('hex')}.tmp`);
    const fd = (0,external_node_fs_.openSync)(temporary, 'wx', 0o600);
    try {
        (0,external_node_fs_.writeSync)(fd, text);
    }
    finally {
        (0,external_node_fs_.closeSync)(fd);
    }
    try {
        (0,external_node_fs_.renameSync)(temporary, path);
    }
    catch (error) {
        (0,external_node_fs_.rmSync)(temporary, { force: true });
        throw error;
    }
}
function readRegularFile(path, maxBytes) {
    let stats;
    try {
        stats = (0,external_node_fs_.lstatSync)(path);
    }
    catch {
        return undefined;
    }
    if (!stats.isFile() || stats.size > maxBytes)
        return undefined;
    return (0,external_node_fs_.readFileSync)(path, 'utf8');
}
function readFileStart(path, bytes) {
    let fd;
    try {
        fd = (0,external_node_fs_.openSync)(path, external_node_fs_.constants.O_RDONLY | external_node_fs_.constants.O_NOFOLLOW);
    }
    catch {
        return undefined;
    }
    try {
        if (!(0,external_node_fs_.fstatSync)(fd).isFile())
            return undefined;
        const buffer = Buffer.alloc(bytes);
        return buffer.subarray(0, (0,external_node_fs_.readSync)(fd, buffer, 0, bytes, 0)).toString('utf8');
    }
    finally {
        (0,external_node_fs_.closeSync)(fd);
    }
}
function pathTaken(path) {
    try {
        (0,external_node_fs_.lstatSync)(path);
        return true;
    }
    catch {
        return false;
    }
}
function isStringRecord(value) {
    return (typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.values(value).every(item => typeof item === 'string'));
}

;// CONCATENATED MODULE: ./cli/env-file.ts


const ENV_FILE_HEADER = '# Written by tunnel-credentials provision; tunnel-credentials revoke deletes it.';
function envFileText(variables) {
    const lines = Object.entries(variables).map(([name, value]) => `${name}=${shellQuoted(value)}`);
    return `${[ENV_FILE_HEADER, ...lines].join('\n')}\n`;
}
function writeEnvFile(path, variables) {
    writePrivateFile(path, envFileText(variables));
}
function shellQuoted(value) {
    return `'${value.replace(/'/g, `'\\''`)}'`;
}
function isOwnEnvFile(path) {
    const text = readRegularFile(path, 1 << 20);
    return text !== undefined && text.startsWith(`${ENV_FILE_HEADER}\n`);
}
function removeEnvFile(path) {
    if (!isOwnEnvFile(path))
        return false;
    (0,external_node_fs_.rmSync)(path, { force: true });
    return true;
}

;// CONCATENATED MODULE: ./cli/own-files.ts


function isOwnOutputsFile(path) {
    const text = readRegularFile(path, 1 << 20);
    if (text === undefined)
        return false;
    try {
        return isStringRecord(JSON.parse(text));
    }
    catch {
        return false;
    }
}
function removeOwnOutputsFile(path) {
    if (path !== undefined && isOwnOutputsFile(path))
        (0,external_node_fs_.rmSync)(path, { force: true });
}
const REQUEST_LOG_CREATOR = 'tunnel-credentials';
const OWN_HAR_START = new RegExp(`^\\s*\\{\\s*"log"\\s*:\\s*\\{\\s*"version"\\s*:\\s*"1\\.2"\\s*,\\s*"creator"\\s*:\\s*\\{\\s*"name"\\s*:\\s*"${REQUEST_LOG_CREATOR}"`);
const HAR_START_BYTES = 4096;
function isOwnRequestLog(path) {
    const start = readFileStart(path, HAR_START_BYTES);
    return start !== undefined && OWN_HAR_START.test(start);
}
function foreignFileAmong(files) {
    for (const { option, path, isOwn } of files) {
        if (path !== undefined && pathTaken(path) && !isOwn(path))
            return { option, path };
    }
    return undefined;
}

;// CONCATENATED MODULE: ./cli/shared-file.ts



const SHARED_VARIABLE = (0,option_facts/* cliVariable */.Zq)('shared-credential');
const SEALED = '[A-Za-z0-9_.-]+';
const OWN_TEXT = new RegExp(`^${SHARED_VARIABLE}=${SEALED}\\n$`);
const MAX_BYTES = 64 * 1024;
const DOTENV_MAX_BYTES = 5 * 1024;
function sharedFileText(sealed) {
    const text = `${SHARED_VARIABLE}=${sealed}\n`;
    if (!OWN_TEXT.test(text))
        throw new Error('the sealed credential holds characters it never has');
    if (text.length > DOTENV_MAX_BYTES) {
        throw new Error(`the sealed credential takes ${text.length} bytes, more than the ${DOTENV_MAX_BYTES} GitLab accepts in a dotenv report`);
    }
    return text;
}
function writeSharedFile(path, sealed) {
    writePrivateFile(path, sharedFileText(sealed));
}
function isOwnSharedFile(path) {
    const text = readRegularFile(path, MAX_BYTES);
    return text !== undefined && OWN_TEXT.test(text);
}
function removeSharedFile({ sharedCredentialFile }) {
    if (sharedCredentialFile !== undefined && isOwnSharedFile(sharedCredentialFile)) {
        (0,external_node_fs_.rmSync)(sharedCredentialFile, { force: true });
    }
}

;// CONCATENATED MODULE: ./cli/share-mode.ts
function requestedShare(options) {
    return options.read('share').trim().toLowerCase();
}
function sharing(options) {
    return !['', 'off'].includes(requestedShare(options));
}
function shareRefusal(command, options) {
    const mode = requestedShare(options);
    const given = `${options.label('share')} is ${mode}`;
    if (mode === 'revoke' && command !== 'revoke') {
        return `${given}, which is for the run's final job: run tunnel-credentials revoke --share revoke there, which needs no state file.`;
    }
    if (mode === 'create' && command === 'run') {
        return `${given}, which leaves the credential to the run's other jobs, but run revokes what it provisions when COMMAND ends: use tunnel-credentials provision --share create in the setup job.`;
    }
    return undefined;
}
function shareScopeWarning(ci, options) {
    if (ci.shareOff === undefined || !sharing(options))
        return undefined;
    return `tunnel-credentials cannot be sure which ${ci.name} run this is, since ${ci.shareOff}; so nothing can be shared here.`;
}

;// CONCATENATED MODULE: ./cli/state-file.ts


const MARKER = 'tunnel-credentials state';
const state_file_MAX_BYTES = 64 * 1024;
function loadStateFile(path) {
    const text = readRegularFile(path, state_file_MAX_BYTES);
    if (text === undefined)
        return pathTaken(path) ? { type: 'foreign' } : { type: 'none' };
    try {
        const parsed = JSON.parse(text);
        if (!isStateFileContent(parsed))
            return { type: 'foreign' };
        return { type: 'state', values: { ...parsed.values } };
    }
    catch {
        return { type: 'foreign' };
    }
}
function isStateFileContent(value) {
    if (typeof value !== 'object' || value === null)
        return false;
    const { format, values } = value;
    return format === MARKER && isStringRecord(values);
}
function claimStateFile(path) {
    let fd;
    try {
        fd = (0,external_node_fs_.openSync)(path, 'wx', 0o600);
    }
    catch (error) {
        if (error.code !== 'EEXIST')
            throw error;
        const found = readRegularFile(path, state_file_MAX_BYTES) === '' ? undefined : loadStateFile(path);
        return found === undefined || found.type === 'none' ? { type: 'state', values: {} } : found;
    }
    try {
        (0,external_node_fs_.writeSync)(fd, stateText({}));
    }
    finally {
        (0,external_node_fs_.closeSync)(fd);
    }
    return undefined;
}
function stateText(values) {
    const content = { format: MARKER, values };
    return `${JSON.stringify(content, null, 2)}\n`;
}
function fileState(path, initial = {}) {
    const values = new Map(Object.entries(initial));
    const state = {
        save: (name, value) => {
            if (value === '')
                values.delete(name);
            else
                values.set(name, value);
            if (path === undefined)
                return;
            writePrivateFile(path, stateText(Object.fromEntries(values)));
        },
        load: name => values.get(name) ?? '',
        isEmpty: () => values.size === 0,
        remove: () => {
            if (path !== undefined && loadStateFile(path).type === 'state')
                (0,external_node_fs_.rmSync)(path, { force: true });
        }
    };
    return state;
}

;// CONCATENATED MODULE: ./core/outcome.ts
function leftUnfinished(outcome) {
    return outcome.credential.status === 'failed' || outcome.tunnel.status === 'alive';
}

;// CONCATENATED MODULE: external "node:os"
const external_node_os_namespaceObject = require("node:os");
// EXTERNAL MODULE: external "node:child_process"
var external_node_child_process_ = __nccwpck_require__(421);
;// CONCATENATED MODULE: ./cli/buildkite-agent.ts



const AGENT_ENVIRONMENT = [
    'BUILDKITE_AGENT_JOB_API_SOCKET',
    'BUILDKITE_AGENT_JOB_API_TOKEN',
    'BUILDKITE_AGENT_ACCESS_TOKEN',
    'BUILDKITE_AGENT_ENDPOINT',
    'BUILDKITE_JOB_ID',
    'BUILDKITE_NO_HTTP2',
    'BUILDKITE_AGENT_DEBUG',
    'BUILDKITE_AGENT_LOG_LEVEL',
    'BUILDKITE_AGENT_NO_COLOR',
    'BUILDKITE_AGENT_EXPERIMENT',
    'HOME',
    'TMPDIR',
    'SYSTEMROOT'
];
function findBuildkiteAgent(env) {
    const folder = env.BUILDKITE_BIN_PATH;
    if (!folder || !(0,external_node_path_.isAbsolute)(folder)) {
        return { missing: 'BUILDKITE_BIN_PATH, where the agent says it lives, is not an absolute path' };
    }
    const path = (0,external_node_path_.join)(folder, process.platform === 'win32' ? 'buildkite-agent.exe' : 'buildkite-agent');
    try {
        if (!(0,external_node_fs_.statSync)(path).isFile())
            throw new Error('not a file');
        (0,external_node_fs_.accessSync)(path, external_node_fs_.constants.X_OK);
    }
    catch {
        return { missing: 'BUILDKITE_BIN_PATH holds no buildkite-agent program' };
    }
    return { path };
}
function agentEnvironment(env) {
    return Object.fromEntries(AGENT_ENVIRONMENT.flatMap(name => (env[name] === undefined ? [] : [[name, env[name]]])));
}
function redactWithAgent(agentPath, env, secret) {
    return ((0,external_node_child_process_.spawnSync)(agentPath, ['redactor', 'add'], {
        env: agentEnvironment(env),
        input: secret,
        stdio: ['pipe', 'ignore', 'ignore'],
        timeout: 10_000
    }).status === 0);
}

;// CONCATENATED MODULE: ./cli/ci-system.ts


const DETECTORS = [
    {
        name: 'GitHub Actions',
        flag: 'GITHUB_ACTIONS',
        detect: env => env.GITHUB_ACTIONS === 'true',
        confirmations: ['GITHUB_RUN_ID', 'GITHUB_WORKSPACE', 'RUNNER_TEMP'],
        share: { system: 'github', repository: 'GITHUB_REPOSITORY', runId: 'GITHUB_RUN_ID' },
        run: env => ({
            repository: env.GITHUB_REPOSITORY,
            runId: env.GITHUB_RUN_ID,
            runAttempt: env.GITHUB_RUN_ATTEMPT
        }),
        masking: () => ({
            describe: '::add-mask::',
            hide: (secret, stdout) => (stdout(`::add-mask::${secret}`), true)
        })
    },
    {
        name: 'GitLab CI',
        flag: 'GITLAB_CI',
        detect: env => env.GITLAB_CI === 'true',
        confirmations: ['CI_JOB_ID'],
        share: { system: 'gitlab', repository: 'CI_PROJECT_PATH', runId: 'CI_PIPELINE_ID' },
        run: env => ({
            repository: env.CI_PROJECT_PATH,
            runId: env.CI_PIPELINE_ID,
            runAttempt: env.CI_JOB_ID
        })
    },
    {
        name: 'Azure Pipelines',
        flag: 'TF_BUILD',
        detect: env => env.TF_BUILD?.toLowerCase() === 'true',
        confirmations: ['AGENT_ID', 'BUILD_BUILDID', 'SYSTEM_TEAMFOUNDATIONCOLLECTIONURI'],
        run: env => ({
            repository: env.BUILD_REPOSITORY_NAME,
            runId: env.BUILD_BUILDID,
            runAttempt: env.SYSTEM_JOBATTEMPT
        }),
        masking: () => ({
            describe: '##vso[task.setsecret]',
            hide: (secret, stdout) => (stdout(`##vso[task.setsecret]${secret}`), true)
        })
    },
    {
        name: 'Buildkite',
        flag: 'BUILDKITE',
        detect: env => env.BUILDKITE === 'true',
        confirmations: ['BUILDKITE_BUILD_ID', 'BUILDKITE_JOB_ID'],
        run: env => ({
            repository: env.BUILDKITE_PIPELINE_SLUG,
            runId: env.BUILDKITE_BUILD_NUMBER,
            runAttempt: env.BUILDKITE_RETRY_COUNT
        }),
        masking: env => {
            const agent = findBuildkiteAgent(env);
            if ('missing' in agent)
                return agent;
            return {
                describe: 'buildkite-agent redactor add',
                hide: secret => redactWithAgent(agent.path, env, secret)
            };
        }
    },
    {
        name: 'Jenkins',
        flag: 'JENKINS_URL or JENKINS_HOME',
        detect: env => Boolean(env.JENKINS_URL || env.JENKINS_HOME),
        run: env => ({ repository: env.JOB_NAME, runId: env.BUILD_NUMBER })
    },
    {
        name: 'CircleCI',
        flag: 'CIRCLECI',
        detect: env => env.CIRCLECI === 'true',
        run: env => ({
            repository: env.CIRCLE_PROJECT_USERNAME && env.CIRCLE_PROJECT_REPONAME
                ? `${env.CIRCLE_PROJECT_USERNAME}/${env.CIRCLE_PROJECT_REPONAME}`
                : undefined,
            runId: env.CIRCLE_BUILD_NUM
        })
    },
    {
        name: 'Bitbucket Pipelines',
        flag: 'BITBUCKET_BUILD_NUMBER',
        detect: env => Boolean(env.BITBUCKET_BUILD_NUMBER),
        run: env => ({ repository: env.BITBUCKET_REPO_FULL_NAME, runId: env.BITBUCKET_BUILD_NUMBER })
    }
];
function detectCiSystem(env, now = Date.now) {
    const signs = DETECTORS.filter(detector => detector.detect(env));
    const found = signs.find(detector => detector.masking === undefined) ?? signs[0];
    if (found === undefined)
        return { name: 'an unknown CI system', run: fallbackRun(now) };
    const run = found.run(env);
    const others = signs.filter(detector => detector !== found);
    const system = {
        name: found.name,
        run: run.repository || run.runId ? run : fallbackRun(now),
        ...shareScopeOf(found, others, env)
    };
    if (others.length > 0) {
        return { ...system, maskingOff: disagreement(others) };
    }
    if (found.masking === undefined)
        return system;
    const missing = (found.confirmations ?? []).filter(name => !env[name]);
    if (missing.length > 0)
        return { ...system, maskingOff: notConfirmed(found, missing) };
    const masking = found.masking(env);
    return 'missing' in masking ? { ...system, maskingOff: masking.missing } : { ...system, masking };
}
function shareScopeOf(found, others, env) {
    const { share } = found;
    if (share === undefined)
        return {};
    if (others.length > 0)
        return { shareOff: disagreement(others) };
    const value = (name) => env[name]?.trim() ?? '';
    const needed = [...new Set([...(found.confirmations ?? []), share.repository, share.runId])];
    const missing = needed.filter(name => value(name) === '');
    if (missing.length > 0)
        return { shareOff: notConfirmed(found, missing) };
    return {
        shareScope: {
            system: share.system,
            repository: value(share.repository),
            runId: value(share.runId),
            variables: `${share.repository} and ${share.runId}`
        }
    };
}
function disagreement(others) {
    const also = others.map(other => `${other.flag} (${other.name})`).join(' and ');
    return `${also} is set too, so the signs disagree`;
}
function notConfirmed(found, missing) {
    return `${found.flag} is set but ${missing.join(', ')}, which ${found.name} always sets, ${missing.length === 1 ? 'is' : 'are'} not`;
}
function fallbackRun(now) {
    return { repository: (0,external_node_os_namespaceObject.hostname)(), runId: String(Math.floor(now() / 1000)) };
}

;// CONCATENATED MODULE: ./cli/masking.ts
function createMasker(ci, terminal) {
    const masked = new Set();
    return secrets => {
        let hidden = true;
        for (const secret of secrets) {
            if (masked.has(secret))
                continue;
            masked.add(secret);
            hidden = (ci.masking?.hide(secret, terminal.stdout) ?? false) && hidden;
        }
        return hidden;
    };
}
function maskingLine(ci, hidden) {
    if (ci.maskingOff !== undefined) {
        return `Masking: off, since ${ci.maskingOff}. tunnel-credentials assumed ${ci.name}, prints no masking command, and never prints a secret.`;
    }
    if (ci.masking === undefined) {
        return `Masking: ${ci.name} cannot hide values made during a job, so tunnel-credentials never prints a secret.`;
    }
    if (hidden === undefined) {
        return `Masking: ${ci.name} hides every credential through ${ci.masking.describe} as it arrives.`;
    }
    return hidden
        ? `Masking: ${ci.name} hides the API key and every credential through ${ci.masking.describe}.`
        : `Masking: ${ci.masking.describe} did not work here, so ${ci.name} hides nothing; tunnel-credentials never prints a secret.`;
}

;// CONCATENATED MODULE: ./cli/cli-settings.ts









const DEFAULT_ENV_FILE = (0,option_facts/* optionDefault */.Z8)('variables-file');
const DEFAULT_STATE_FILE_NAME = (0,option_facts/* optionDefault */.Z8)('state-file');
const DEFAULT_REQUEST_LOG_NAME = (0,option_facts/* optionDefault */.Z8)('request-log');
const DEFAULT_SHARED_FILE = (0,option_facts/* optionDefault */.Z8)('shared-credential-file');
const LONGEST_TUNNEL_MINUTES = 7 * 24 * 60;
function readCliSettings(raw, { forRevoke = false } = {}) {
    const options = checkedOptions(raw);
    const envFile = (0,external_node_path_.resolve)(options.read('variables-file').trim() || DEFAULT_ENV_FILE);
    const stateFile = (0,external_node_path_.resolve)(options.read('state-file').trim() || (0,external_node_path_.join)((0,external_node_path_.dirname)(envFile), DEFAULT_STATE_FILE_NAME));
    const outputsFile = options.read('outputs-file').trim();
    const requestLog = (0,external_node_path_.resolve)(options.read('request-log').trim() || (0,external_node_path_.join)((0,external_node_path_.dirname)(envFile), DEFAULT_REQUEST_LOG_NAME));
    const workDir = (0,external_node_path_.resolve)(options.read('work-dir').trim() || (0,external_node_os_namespaceObject.tmpdir)());
    const sharedCredentialFile = requestedShare(options) === 'create'
        ? (0,external_node_path_.resolve)(options.read('shared-credential-file').trim() || DEFAULT_SHARED_FILE)
        : undefined;
    if (!forRevoke) {
        requireDirectory(options, 'work-dir', workDir);
        requireDirectory(options, 'variables-file', (0,external_node_path_.dirname)(envFile));
        requireDirectory(options, 'state-file', (0,external_node_path_.dirname)(stateFile));
        if (outputsFile)
            requireDirectory(options, 'outputs-file', (0,external_node_path_.dirname)((0,external_node_path_.resolve)(outputsFile)));
        requireDirectory(options, 'request-log', (0,external_node_path_.dirname)(requestLog));
        if (sharedCredentialFile) {
            requireDirectory(options, 'shared-credential-file', (0,external_node_path_.dirname)(sharedCredentialFile));
        }
    }
    refuseSharedFile(options, forRevoke, [
        ['variables-file', envFile],
        ['state-file', stateFile],
        ...(outputsFile ? [['outputs-file', (0,external_node_path_.resolve)(outputsFile)]] : []),
        ['request-log', requestLog],
        ...(sharedCredentialFile
            ? [['shared-credential-file', sharedCredentialFile]]
            : [])
    ]);
    const tunnelMaxMinutes = (0,option_values/* readWholeNumber */.bf)(options, 'tunnel-max-minutes', 1, LONGEST_TUNNEL_MINUTES);
    return {
        envFile,
        stateFile,
        ...(outputsFile && { outputsFile: (0,external_node_path_.resolve)(outputsFile) }),
        requestLog,
        ...(sharedCredentialFile && { sharedCredentialFile }),
        workDir,
        ...(tunnelMaxMinutes !== undefined && { tunnelMaxMinutes })
    };
}
function refuseSharedFile(options, forRevoke, files) {
    for (const [index, [name, path]] of files.entries()) {
        if (!forRevoke && (0,external_node_fs_.existsSync)(path) && (0,external_node_fs_.statSync)(path).isDirectory()) {
            throw new errors/* ExplainedError */.h(`${(0,option_values/* optionNamed */.b7)(options, name)} is ${(0,printable/* printablePath */.Vj)(path)}, which is a directory. Name a file, e.g. ${(0,printable/* printablePath */.Vj)((0,external_node_path_.join)(path, exampleFileName(name)))}.`);
        }
        const other = files.slice(0, index).find(([, earlier]) => earlier === path);
        if (other !== undefined) {
            throw new errors/* ExplainedError */.h(`${(0,option_values/* optionNamed */.b7)(options, other[0])} and ${options.label(name)} both name ${(0,printable/* printablePath */.Vj)(path)}. Give each its own file.`);
        }
    }
}
function requireDirectory(options, name, path) {
    let isDirectory = false;
    try {
        isDirectory = (0,external_node_fs_.statSync)(path).isDirectory();
    }
    catch {
    }
    if (!isDirectory) {
        const what = name === 'work-dir' ? 'is' : 'is in';
        throw new errors/* ExplainedError */.h(`${(0,option_values/* optionNamed */.b7)(options, name)} ${what} ${(0,printable/* printablePath */.Vj)(path)}, which is not an existing directory. Create it first, or choose another.`);
    }
}
function exampleFileName(option) {
    if (option === 'variables-file')
        return DEFAULT_ENV_FILE;
    if (option === 'request-log')
        return DEFAULT_REQUEST_LOG_NAME;
    if (option === 'shared-credential-file')
        return DEFAULT_SHARED_FILE;
    return `${option}.json`;
}

;// CONCATENATED MODULE: ./core/clock.ts
const systemClock = {
    now: () => Date.now(),
    sleep: ms => new Promise(resolve => setTimeout(resolve, ms)),
    random: () => Math.random()
};

;// CONCATENATED MODULE: ./core/tunnel/main/keeper-environment.ts
const KEPT_VARIABLES = [
    'PATH',
    'HOME',
    'USERPROFILE',
    'TEMP',
    'TMP',
    'TMPDIR',
    'SYSTEMROOT',
    'WINDIR',
    'LANG'
];
function keeperEnvironment(env, extra = []) {
    const kept = new Set([...KEPT_VARIABLES, ...extra]);
    const result = {};
    for (const [name, value] of Object.entries(env)) {
        if (value !== undefined && kept.has(name.toUpperCase()))
            result[name] = value;
    }
    return result;
}

;// CONCATENATED MODULE: ./cli/keeper-launch.ts



function bundledKeeper(env) {
    const cliDir = (0,external_node_path_.dirname)((0,external_node_fs_.realpathSync)(process.argv[1]));
    return {
        scriptPath: (0,external_node_path_.join)(cliDir, '..', 'tunnel', 'index.cjs'),
        environment: keeperEnvironment(env)
    };
}

;// CONCATENATED MODULE: ./cli/host.ts


function cliHost(parts) {
    const { options, terminal, ci, state } = parts;
    return {
        options,
        log: {
            info: message => terminal.stdout(message),
            notice: message => terminal.stdout(`Notice: ${message}`),
            warning: message => terminal.stderr(`Warning: ${message}`)
        },
        mask: parts.mask,
        handOver: writes => {
            parts.deliver(writes);
            printSummary(terminal, writes.summary);
        },
        state,
        tempRoot: parts.workDir,
        tempRootName: options.label('work-dir'),
        ...(parts.outputsName !== undefined && { outputsName: parts.outputsName }),
        run: ci.run,
        ...(ci.shareScope !== undefined && { shareScope: ci.shareScope }),
        clock: systemClock,
        keeperLaunch: () => ({ ...bundledKeeper(parts.env), ends: parts.tunnelEnd }),
        requestLogPath: () => parts.requestLog
    };
}
function printSummary(terminal, tables) {
    for (const { heading, lines = [], columns, rows } of tables) {
        terminal.stdout(`${heading}:`);
        for (const line of lines)
            terminal.stdout(`  ${line}`);
        if (columns.length > 2)
            terminal.stdout(`  ${columns.join(' | ')}`);
        for (const row of rows) {
            terminal.stdout(columns.length > 2 ? `  ${row.join(' | ')}` : `  ${row[0]}: ${row[1]}`);
        }
    }
}

// EXTERNAL MODULE: ./cli/option-names.ts
var option_names = __nccwpck_require__(301);
;// CONCATENATED MODULE: ./cli/options.ts


function cliOptions(flags, env) {
    const flagged = (name) => (0,option_names/* isFlagName */.aA)(name) && flags.has(name);
    const variableSetting = (name) => {
        const earlier = (0,option_names/* isFlagName */.aA)(name) ? option_names/* EARLIER_VARIABLES */.BM[name] : undefined;
        const own = (0,option_names/* variableFor */.S_)(name);
        return env[own] === undefined && earlier !== undefined && env[earlier] !== undefined
            ? earlier
            : own;
    };
    return {
        read: name => {
            if (flagged(name))
                return flags.get(name);
            if ((0,option_names/* isFlagName */.aA)(name) || (0,option_names/* isSecretOption */.Et)(name))
                return env[variableSetting(name)] ?? '';
            if ((0,option_facts/* optionFacts */.Ds)(name) === undefined)
                throw new Error(`No option is named ${name}.`);
            return '';
        },
        label: name => {
            if (flagged(name))
                return `--${name}`;
            if ((0,option_names/* isSecretOption */.Et)(name))
                return (0,option_names/* variableFor */.S_)(name);
            if (!(0,option_names/* isFlagName */.aA)(name))
                return name;
            const variable = variableSetting(name);
            return env[variable] !== undefined ? variable : `--${name}`;
        }
    };
}

;// CONCATENATED MODULE: ./cli/commands/context.ts














function startCommand(input, { makeState, deliver, writesOutputs, watchPid, forRevoke = false }) {
    const { env, terminal } = input;
    const options = cliOptions(input.flags, env);
    const ci = detectCiSystem(env);
    const mask = createMasker(ci, terminal);
    const secrets = option_facts/* SECRET_OPTION_NAMES */.w$.map(name => options.read(name)).filter(Boolean);
    terminal.stdout(maskingLine(ci, secrets.length > 0 ? mask(secrets) : undefined));
    const unscoped = shareScopeWarning(ci, options);
    if (unscoped !== undefined)
        terminal.stderr(`Warning: ${unscoped}`);
    let settings;
    try {
        settings = readCliSettings(options, { forRevoke });
    }
    catch (error) {
        return { error: error.message };
    }
    const state = makeState(settings);
    const host = cliHost({
        options,
        terminal,
        ci,
        mask: warnOnce(mask, terminal, ci),
        state,
        workDir: settings.workDir,
        ...(writesOutputs?.(settings) === true && {
            outputsName: `the file ${options.label('outputs-file')} names`
        }),
        requestLog: settings.requestLog,
        tunnelEnd: tunnelEnd(settings, watchPid),
        env,
        deliver: deliver?.(settings) ??
            (() => {
                throw new Error('this command hands nothing over');
            })
    });
    return { host, settings, state };
}
function tunnelEnd(settings, watchPid) {
    return {
        ...(settings.tunnelMaxMinutes !== undefined && { maxMinutes: settings.tunnelMaxMinutes }),
        ...(watchPid !== undefined && { watchPid })
    };
}
function fail(input, message) {
    input.terminal.stderr(`Error: ${message}`);
    return 1;
}
function finishRevoke(input, outcome, state, stateFile) {
    let code = 0;
    if (outcome.requests?.countsLine !== undefined)
        input.terminal.stdout(outcome.requests.countsLine);
    if (outcome.kindMismatch !== undefined)
        code = fail(input, outcome.kindMismatch);
    const { credential } = outcome;
    if (credential.status === 'failed') {
        if (credential.report === 'fail-step')
            code = fail(input, credential.message);
        else if (credential.report === 'warning')
            input.terminal.stderr(`Warning: ${credential.message}`);
        else
            input.terminal.stdout(credential.message);
    }
    if (leftUnfinished(outcome)) {
        input.terminal.stdout(`Kept ${(0,printable/* printablePath */.Vj)(stateFile)}, so that running revoke again can retry.`);
    }
    else {
        state.remove();
    }
    return code;
}
function warnOnce(mask, terminal, ci) {
    let warned = false;
    return secrets => {
        if (mask(secrets) || warned || ci.masking === undefined)
            return;
        warned = true;
        terminal.stderr(`Warning: ${ci.masking.describe} did not work, so ${ci.name} will not hide the credential; tunnel-credentials never prints it.`);
    };
}
function claimFiles(settings, host, { writesVariables }) {
    const label = (name) => host.options.label(name);
    const foreign = writesVariables
        ? foreignFileAmong([
            { option: 'variables-file', path: settings.envFile, isOwn: isOwnEnvFile },
            { option: 'outputs-file', path: settings.outputsFile, isOwn: isOwnOutputsFile },
            { option: 'request-log', path: settings.requestLog, isOwn: isOwnRequestLog },
            {
                option: 'shared-credential-file',
                path: settings.sharedCredentialFile,
                isOwn: isOwnSharedFile
            }
        ])
        : undefined;
    if (foreign !== undefined) {
        const flag = label(foreign.option);
        return `${(0,printable/* printablePath */.Vj)(foreign.path)} (${flag}) exists and was not written by tunnel-credentials, which never replaces such a file. Move it away, or choose another ${flag}.`;
    }
    const flag = label('state-file');
    let found;
    try {
        found = claimStateFile(settings.stateFile);
    }
    catch (error) {
        return `Could not create ${(0,printable/* printablePath */.Vj)(settings.stateFile)} (${flag}): ${(0,describe_error/* describeUnexpected */.V)(error)}. Check that its folder is writable.`;
    }
    if (found === undefined)
        return undefined;
    if (found.type === 'foreign') {
        return `${(0,printable/* printablePath */.Vj)(settings.stateFile)} (${flag}) exists and is not a tunnel-credentials state file. Move it away, or choose another ${flag}.`;
    }
    if (found.type === 'state' && Object.keys(found.values).length === 0) {
        return `${(0,printable/* printablePath */.Vj)(settings.stateFile)} (${flag}) is taken by another provision or run in this folder, or by one that was stopped before it obtained anything. Wait for it to end; if none is running, run tunnel-credentials revoke with the same options to clear it.`;
    }
    return `${(0,printable/* printablePath */.Vj)(settings.stateFile)} (${flag}) records a credential or tunnel that was never revoked. Run tunnel-credentials revoke first, with the same options.`;
}

;// CONCATENATED MODULE: ./cli/commands/provision.ts









async function provisionCommand(input) {
    let written = 0;
    let shared = false;
    const started = startCommand(input, {
        makeState: settings => fileState(settings.stateFile),
        deliver: settings => writes => {
            shared = writeFiles(settings, writes);
            written = Object.keys(writes.variables).length;
        },
        writesOutputs: settings => settings.outputsFile !== undefined
    });
    if ('error' in started)
        return fail(input, started.error);
    const { host, settings, state } = started;
    const unfit = shareRefusal('provision', host.options);
    if (unfit !== undefined)
        return fail(input, unfit);
    const refused = claimFiles(settings, host, { writesVariables: true });
    if (refused !== undefined)
        return fail(input, refused);
    removeSharedFile(settings);
    const outcome = await provision(host);
    if (outcome.status === 'failed') {
        if (state.isEmpty())
            state.remove();
        return fail(input, outcome.message);
    }
    if (state.isEmpty())
        state.remove();
    host.log.info(`Wrote ${written} variables to ${(0,printable/* printablePath */.Vj)(settings.envFile)}; load them with: set -a; . ${(0,printable/* printablePath */.Vj)(shellPath(settings.envFile))}; set +a`);
    if (shared && settings.sharedCredentialFile !== undefined) {
        host.log.info(`Wrote ${SHARED_VARIABLE} to ${(0,printable/* printablePath */.Vj)(settings.sharedCredentialFile)} for the run's other jobs (sealed: it opens only with the API key).`);
    }
    return 0;
}
function writeFiles(settings, { variables, outputs }) {
    writeEnvFile(settings.envFile, variables);
    try {
        if (settings.outputsFile !== undefined) {
            writePrivateFile(settings.outputsFile, `${JSON.stringify(outputs, null, 2)}\n`);
        }
        const sealed = outputs['shared-credential'] ?? '';
        if (settings.sharedCredentialFile === undefined || sealed === '')
            return false;
        writeSharedFile(settings.sharedCredentialFile, sealed);
        return true;
    }
    catch (error) {
        removeEnvFile(settings.envFile);
        removeOwnOutputsFile(settings.outputsFile);
        throw error;
    }
}
function shellPath(path) {
    return /^[A-Za-z0-9_./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

;// CONCATENATED MODULE: ./core/assembly/read-post.ts






function readPostSettings(options, kind = readPostKind(options)) {
    return {
        kind,
        apiKey: options.read(option_facts/* API_KEY_OPTION */.$n).trim(),
        ...(credentialKind(kind).sendsRequests && { baseUrl: readBaseUrl(options) }),
        revoke: (0,option_values/* readBoolean */.Vf)(options, 'revoke', true),
        failOnRevokeError: parseFailOnRevokeError(options),
        http: readHttpSettings(options),
        optionLabel: name => options.label(name),
        ...(options.read('share').trim() !== '' && { share: readShareMode(options) })
    };
}
function readPostKind(options) {
    return readKindChoice(options).kind;
}

;// CONCATENATED MODULE: ./core/revoke-kind.ts


function chooseRevokeKind(options, recorded, readsAs) {
    const optionKind = readPostKind(options);
    const named = options.read('credential').trim().toLowerCase();
    if (recorded === undefined)
        return { kind: optionKind };
    if (named === '' || named === 'auto' || optionKind === recorded)
        return { kind: recorded };
    const label = options.label('credential');
    const mismatch = `The saved state records a credential of kind "${recorded}", but ${label} is "${optionKind}". ` +
        `It was treated as "${recorded}", as recorded; run revoke with the options provision had, or without ${label}.`;
    const unrevocable = credentialKind(recorded).revocation === 'unrevocable';
    if (unrevocable && credentialKind(optionKind).revocation === 'revoke' && readsAs(optionKind)) {
        return {
            kind: optionKind,
            mismatch: `The saved state records a credential of kind "${recorded}", which cannot be revoked, but ${label} is "${optionKind}". ` +
                `It was revoked as "${optionKind}", since saved state is not trusted to skip a revoke.`
        };
    }
    return { kind: recorded, mismatch };
}

// EXTERNAL MODULE: ./core/tunnel/saved/saved-tunnel.ts + 1 modules
var saved_tunnel = __nccwpck_require__(900);
;// CONCATENATED MODULE: ./core/revoke.ts












const NOTHING_SAVED = 'Nothing to revoke: no credential was provisioned, or it was already revoked.';
async function revoke(host) {
    const { options } = host;
    host.mask(option_facts/* SECRET_OPTION_NAMES */.w$.map(name => options.read(name)).filter(Boolean));
    const { tunnel, untidied, requests } = await stopRecordedTunnel(host);
    const { credential, kindMismatch } = await revokeRecordedCredential(host);
    return {
        tunnel,
        credential,
        ...(kindMismatch && { kindMismatch }),
        untidied,
        ...(requests && { requests })
    };
}
async function stopRecordedTunnel(host) {
    if (host.state.load('tunnel') === '')
        return { tunnel: { status: 'none' }, untidied: [] };
    const loaded = (0,saved_tunnel/* loadTunnel */.Lc)(host.state, host.tempRoot);
    if (loaded === undefined) {
        host.log.warning('The saved state records a tunnel process, but not one this tool could have started, so nothing was stopped. Something other than this tool may have written the state.');
        return { tunnel: { status: 'not-found' }, untidied: [] };
    }
    const { stopSavedTunnel } = await __nccwpck_require__.e(/* import() */ 739).then(__nccwpck_require__.bind(__nccwpck_require__, 739));
    const stopped = await stopSavedTunnel(loaded, host);
    return {
        tunnel: stopped.outcome,
        untidied: stopped.untidied ? [stopped.untidied] : [],
        ...(stopped.requests && { requests: stopped.requests })
    };
}
async function revokeRecordedCredential(host) {
    const { options, log, clock, state } = host;
    if (!hasSavedCredential(state)) {
        log.info(NOTHING_SAVED);
        return { credential: { status: 'nothing' } };
    }
    let failOnRevokeError = false;
    let baseUrl = (0,printable/* printable */.g$)(options.read('base-url'));
    let saved;
    let chosen;
    try {
        failOnRevokeError = parseFailOnRevokeError(options);
        chosen = chooseRevokeKind(options, recordedKind(state), kind => loadCredential(state, kind) !== undefined);
        saved = loadCredential(state, chosen.kind);
        if (!saved) {
            const message = `The saved state holds a credential that does not read as ${options.label('credential')} "${chosen.kind}", so nothing was revoked. ` +
                'If it was provisioned with other options, revoke with those; otherwise the state was written by something else.';
            return failed(message, 'warning', chosen);
        }
        const settings = readPostSettings(options, chosen.kind);
        if (settings.baseUrl !== undefined)
            baseUrl = settings.baseUrl;
        const stateBaseUrl = 'baseUrl' in saved ? saved.baseUrl : undefined;
        const revokedAs = await revokeSavedCredential(saved, {
            settings,
            service: () => {
                if (settings.baseUrl === undefined) {
                    throw new Error(`credential ${settings.kind} sends no request`);
                }
                warnIfStateMoved(host, stateBaseUrl, settings.baseUrl);
                return createService(settings.baseUrl, settings.http, clock, log);
            },
            log,
            tempRoot: host.tempRoot,
            tempRootName: host.tempRootName
        });
        return { credential: { status: revokedAs }, ...withMismatch(chosen) };
    }
    catch (error) {
        const reason = error instanceof errors/* ExplainedError */.h
            ? error.message
            : explainFailure(error, { baseUrl, nowMs: clock.now(), label: name => options.label(name) });
        const weight = failOnRevokeError ? 'fail-step' : 'warning';
        if (!saved)
            return failed(`Could not revoke what was provisioned: ${reason}`, weight, chosen);
        const message = `Could not revoke ${describeCredential(saved)}: ${reason}`;
        const expiresAt = 'expiresAt' in saved ? saved.expiresAt : undefined;
        if ((0,iso_time/* hasExpired */.o)(expiresAt, clock.now())) {
            const note = ` It should already have expired at ${(0,printable/* printable */.g$)(expiresAt ?? '')}.`;
            return failed(`${message}${note}`, 'info', chosen);
        }
        return failed(`${message}${expiryNote({ expiresAt }) || ' Its expiry is unknown.'}`, weight, chosen);
    }
}
function failed(message, report, chosen) {
    return { credential: { status: 'failed', message, report }, ...withMismatch(chosen) };
}
function withMismatch(chosen) {
    return chosen?.mismatch === undefined ? {} : { kindMismatch: chosen.mismatch };
}
function warnIfStateMoved({ log, options }, stateBaseUrl, baseUrl) {
    if (stateBaseUrl === undefined || stateBaseUrl === baseUrl)
        return;
    log.warning(`The saved state names the credential service at ${(0,printable/* printable */.g$)(stateBaseUrl)}, but ${options.label('base-url')} is ${baseUrl}. ` +
        `The API key goes only to ${options.label('base-url')}, so the revoke is sent there. Something other than this tool may have written the state.`);
}

;// CONCATENATED MODULE: ./cli/commands/revoke.ts










async function revokeCommand(input) {
    let foreignState = false;
    const started = startCommand(input, {
        forRevoke: true,
        makeState: settings => {
            const found = loadStateFile(settings.stateFile);
            foreignState = found.type === 'foreign';
            return fileState(found.type === 'foreign' ? undefined : settings.stateFile, found.type === 'state' ? found.values : {});
        }
    });
    if ('error' in started)
        return fail(input, started.error);
    const { host, settings } = started;
    if (requestedShare(host.options) !== 'revoke')
        return await revokeRecorded(input, started, foreignState);
    const code = pathTaken(settings.stateFile)
        ? await revokeRecorded(input, started, foreignState)
        : 0;
    const shared = await revoke_revokeSharedCredential(input, host);
    return code !== 0 ? code : shared;
}
async function revokeRecorded(input, { host, settings, state }, foreignState) {
    const flag = host.options.label('state-file');
    if (isDirectory(settings.stateFile)) {
        removeFiles(host, settings);
        return fail(input, `${(0,printable/* printablePath */.Vj)(settings.stateFile)} (${flag}) is a folder, not the state file provision wrote, so nothing could be stopped or revoked. Run revoke with ${flag} naming the file provision wrote.`);
    }
    if (foreignState) {
        host.log.warning(`${(0,printable/* printablePath */.Vj)(settings.stateFile)} (${flag}) is not a tunnel-credentials state file, so it was left alone and nothing was revoked.`);
        removeFiles(host, settings);
        return 0;
    }
    const outcome = await revoke(host);
    removeFiles(host, settings);
    return finishRevoke(input, outcome, state, settings.stateFile);
}
async function revoke_revokeSharedCredential(input, host) {
    const outcome = await provision(host);
    if (outcome.status === 'failed')
        return fail(input, outcome.message);
    if (outcome.status !== 'shared-revoked') {
        throw new Error(`share revoke ended as ${outcome.status}, not shared-revoked`);
    }
    return 0;
}
function isDirectory(path) {
    try {
        return (0,external_node_fs_.lstatSync)(path).isDirectory();
    }
    catch {
        return false;
    }
}
function removeFiles(host, settings) {
    if (!removeEnvFile(settings.envFile) &&
        readRegularFile(settings.envFile, 1 << 20) !== undefined) {
        host.log.warning(`${(0,printable/* printablePath */.Vj)(settings.envFile)} was not written by tunnel-credentials, so it was left in place.`);
    }
    removeOwnOutputsFile(settings.outputsFile);
}

;// CONCATENATED MODULE: ./cli/own-environment.ts



function keepSecretsFromCommand(input, own = thisProcess()) {
    const cleared = clearSecretsFromOwnEnvironment(input.env, own);
    if ('error' in cleared)
        return (input.terminal.stderr(`Error: ${cleared.error}`), undefined);
    if (cleared.warning !== undefined)
        input.terminal.stderr(`Warning: ${cleared.warning}`);
    return { ...input, env: cleared.env };
}
function clearSecretsFromOwnEnvironment(env, own = thisProcess()) {
    const copy = { ...env };
    const present = option_facts/* SECRET_VARIABLES */.VP.filter(name => env[name] !== undefined);
    for (const name of option_facts/* SECRET_VARIABLES */.VP)
        delete own.inherited[name];
    if (present.length === 0)
        return { env: copy };
    const names = present.join(' and ');
    if (own.platform !== 'linux') {
        return {
            env: copy,
            warning: `on ${own.platform}, run cannot clear ${names} from the environment it was started with, where other processes of this user, COMMAND among them, may read it. Only on Linux does run keep it from COMMAND.`
        };
    }
    try {
        overwriteEntries(own.procDir, option_facts/* SECRET_VARIABLES */.VP);
    }
    catch (error) {
        return {
            error: `run could not clear ${names} from its own environment block (${(0,describe_error/* describeUnexpected */.V)(error)}), where COMMAND could read it in /proc/${own.pid}/environ, so nothing was started. Use provision and revoke around COMMAND instead, or a runner where a process may write its own /proc/self/mem.`
        };
    }
    return { env: copy };
}
function thisProcess() {
    return {
        platform: process.platform,
        pid: process.pid,
        procDir: '/proc/self',
        inherited: process.env
    };
}
function overwriteEntries(procDir, names) {
    if (secretEntries((0,external_node_fs_.readFileSync)(`${procDir}/environ`), names).length === 0)
        return;
    const { start, end } = environmentBlock((0,external_node_fs_.readFileSync)(`${procDir}/stat`, 'utf8'));
    const memory = (0,external_node_fs_.openSync)(`${procDir}/mem`, 'r+');
    try {
        const block = Buffer.alloc(end - start);
        if ((0,external_node_fs_.readSync)(memory, block, 0, block.length, start) !== block.length) {
            throw new Error('the block could not be read whole');
        }
        for (const [from, to] of secretEntries(block, names)) {
            if ((0,external_node_fs_.writeSync)(memory, Buffer.alloc(to - from), 0, to - from, start + from) !== to - from) {
                throw new Error('the block could not be written whole');
            }
        }
    }
    finally {
        (0,external_node_fs_.closeSync)(memory);
    }
    if (secretEntries((0,external_node_fs_.readFileSync)(`${procDir}/environ`), names).length > 0) {
        throw new Error('the entries were still there after they were overwritten');
    }
}
function secretEntries(block, names) {
    const prefixes = names.map(name => Buffer.from(`${name}=`));
    const found = [];
    for (let from = 0; from < block.length;) {
        const nul = block.indexOf(0, from);
        const to = nul === -1 ? block.length : nul;
        const entry = block.subarray(from, to);
        if (prefixes.some(prefix => entry.subarray(0, prefix.length).equals(prefix))) {
            found.push([from, to]);
        }
        from = to + 1;
    }
    return found;
}
function environmentBlock(stat) {
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [start, end] = [fields[50 - 3], fields[51 - 3]].map(field => /^\d+$/.test(field ?? '') ? Number(field) : Number.NaN);
    if (!(start > 0 && end > start && Number.isSafeInteger(end))) {
        throw new Error('/proc/self/stat gives no address for it');
    }
    return { start, end };
}

;// CONCATENATED MODULE: ./cli/commands/run.ts











const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
async function runCommand(given, commandLine) {
    const input = keepSecretsFromCommand(given);
    if (input === undefined)
        return 1;
    let variables = {};
    const started = startCommand(input, {
        makeState: settings => fileState(settings.stateFile),
        deliver: () => writes => (variables = writes.variables),
        watchPid: process.pid
    });
    if ('error' in started)
        return fail(input, started.error);
    const { host, state } = started;
    const unfit = shareRefusal('run', host.options);
    if (unfit !== undefined)
        return fail(input, unfit);
    const refused = claimFiles(started.settings, host, { writesVariables: false });
    if (refused !== undefined)
        return fail(input, refused);
    let received;
    let forward = signal => (received ??= signal);
    const handlers = FORWARDED_SIGNALS.map(signal => {
        const handler = () => forward(signal);
        process.on(signal, handler);
        return [signal, handler];
    });
    try {
        const provisioned = await provision(host);
        if (provisioned.status === 'failed') {
            if (state.isEmpty())
                state.remove();
            return fail(input, provisioned.message);
        }
        const code = received === undefined
            ? await runChild(commandLine, childEnvironment(input.env, variables), child => {
                forward = signal => child.kill(signal);
            }, input.terminal)
            : 128 + external_node_os_namespaceObject.constants.signals[received];
        forward = signal => (received ??= signal);
        host.log.info('The command ended; stopping the tunnel and revoking the credential.');
        const revoked = finishRevoke(input, await revoke(host), state, started.settings.stateFile);
        return revoked !== 0 && code === 0 ? revoked : code;
    }
    finally {
        for (const [signal, handler] of handlers)
            process.off(signal, handler);
    }
}
function childEnvironment(env, variables) {
    const result = { ...env, ...variables };
    for (const variable of option_facts/* SECRET_VARIABLES */.VP)
        delete result[variable];
    return result;
}
function runChild(commandLine, env, started, terminal) {
    return new Promise(resolve => {
        const [file, ...args] = commandLine;
        const child = (0,external_node_child_process_.spawn)(file, args, { stdio: 'inherit', env });
        started(child);
        child.once('error', (error) => {
            terminal.stderr(`Error: could not start ${(0,printable/* printable */.g$)(file)}: ${startError(error)}.`);
            resolve(127);
        });
        child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? external_node_os_namespaceObject.constants.signals[signal] : 0)));
    });
}
function startError(error) {
    if (error.code === 'ENOENT')
        return 'no such command (check its name and PATH)';
    if (error.code === 'EACCES')
        return 'it is not executable';
    return (0,describe_error/* describeUnexpected */.V)(error);
}

// EXTERNAL MODULE: ./core/version.ts
var version = __nccwpck_require__(830);
;// CONCATENATED MODULE: ./cli/help.ts



const WIDTH = 94;
const DESCRIPTION_COLUMN = 25;
function usage(name) {
    return `--${name} ${(0,option_facts/* optionFacts */.Ds)(name)?.value ?? 'VALUE'}`;
}
function actionOptionsText() {
    const lines = [];
    for (const item of option_names/* ACTION_OPTIONS */.wE.map(usage)) {
        const last = lines.length - 1;
        if (last >= 0 && lines[last].length + 3 + item.length <= WIDTH)
            lines[last] += `   ${item}`;
        else
            lines.push(`  ${item}`);
    }
    return lines.join('\n');
}
function cliOptionsText() {
    return option_names/* CLI_OPTIONS */.EH.map(name => {
        const head = `  ${usage(name)}`.padEnd(DESCRIPTION_COLUMN - 1);
        const words = ((0,option_facts/* optionFacts */.Ds)(name)?.description ?? '').split(' ');
        const lines = [`${head} `];
        for (const word of words) {
            const last = lines.length - 1;
            const fresh = lines[last].length <= DESCRIPTION_COLUMN;
            if (!fresh && lines[last].length + 1 + word.length > WIDTH) {
                lines.push(`${' '.repeat(DESCRIPTION_COLUMN)}${word}`);
            }
            else
                lines[last] += fresh ? word : ` ${word}`;
        }
        return lines.join('\n');
    }).join('\n');
}
function secretVariablesText() {
    return (0,option_facts/* optionsOf */.cz)('cli')
        .filter(option => option.secret)
        .map(option => `  ${(0,option_names/* variableFor */.S_)(option.name).padEnd(DESCRIPTION_COLUMN)}${option.secretHelp ?? ''}`)
        .join('\n');
}
function listed(items) {
    return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
function renamedVariablesText() {
    const renamed = (0,option_facts/* optionsOf */.cz)('cli').filter(option => !option.secret && option.variable !== undefined);
    const variables = renamed.map(option => (0,option_names/* variableFor */.S_)(option.name));
    const parts = variables.map(variable => variable.split('_'));
    let shared = 0;
    while (parts.every(words => shared < words.length - 1 && words[shared] === parts[0][shared])) {
        shared++;
    }
    const short = parts.map((words, index) => index === 0 ? words.join('_') : `_${words.slice(shared).join('_')}`);
    return `${listed(renamed.map(option => `--${option.name}`))} read ${listed(short)},`;
}
const VERSION_TEXT = `tunnel-credentials ${version/* ACTION_VERSION */.Y}`;
const HELP_TEXT = `Usage:
  tunnel-credentials provision [options]
      Obtain a credential; write its variables to the variables file and what revoke needs to
      the state file. With --expose, also open the tunnel in the background and print its URLs.
      --share create also writes SVC_SHARED_CREDENTIAL to shared.env for the run's other jobs;
      --share use takes the run's credential from SVC_SHARED_CREDENTIAL instead.
  tunnel-credentials revoke [options]
      Stop the tunnel, revoke the credential, delete the variables, state and key files. Safe to
      run twice, or when nothing was provisioned. A shared credential is left to the run, whose
      final job runs revoke --share revoke: it revokes SVC_SHARED_CREDENTIAL's, no state needed.
  tunnel-credentials run [options] -- COMMAND [ARGS...]
      Provision, run COMMAND with the variables in its environment (no variables file), then
      stop and revoke when it ends or on SIGINT, SIGTERM or SIGHUP. Exits with COMMAND's exit
      code.
  tunnel-credentials replay FILE.har --to URL [--index 1,3-5] [--method POST] [--path /PREFIX]
      Send the requests of a HAR (the request log) again to URL, in order, and print each
      status beside the recorded one; exit 1 when a status class differs. Reads no variable.
      Example: tunnel-credentials replay requests.har --to http://127.0.0.1:3000 --path /webhooks/
  tunnel-credentials --help | --version

Every option can also be set by its variable, SVC_ and the name in upper snake case
(--project: SVC_PROJECT); a flag wins over its variable. Secrets come only from variables:
${secretVariablesText()}
${renamedVariablesText()}
so that the variables provision writes are never read back as options.

Options (as the GitHub Action's inputs):
${actionOptionsText()}
CLI options:
${cliOptionsText()}

Exit codes: 0 success; 1 failure (one line on stderr names the option at fault); 2 usage.
Docs: https://github.com/provision-tunnel-credentials/provision-tunnel-credentials/blob/main/docs/other-ci.md
`;

;// CONCATENATED MODULE: ./cli/index.ts






async function main(argv, env, terminal) {
    const usageError = (error) => {
        if (!(error instanceof cli_arguments/* UsageError */.eb))
            throw error;
        terminal.stderr(`Usage error: ${error.message} See tunnel-credentials --help.`);
        return 2;
    };
    let parsed;
    try {
        parsed = (0,cli_arguments/* parseArguments */.We)(argv);
    }
    catch (error) {
        return usageError(error);
    }
    if (parsed.type === 'help')
        return (terminal.stdout(HELP_TEXT.trimEnd()), 0);
    if (parsed.type === 'version')
        return (terminal.stdout(VERSION_TEXT), 0);
    if (parsed.type === 'replay') {
        const { replayCommand } = await __nccwpck_require__.e(/* import() */ 508).then(__nccwpck_require__.bind(__nccwpck_require__, 508));
        return await replayCommand(parsed.args, terminal).catch(error => {
            if (error instanceof cli_arguments/* UsageError */.eb)
                return usageError(error);
            terminal.stderr(`Error: unexpected error in replay: ${(0,describe_error/* describeUnexpected */.V)(error)}. This is a bug in tunnel-credentials; please report it with this output.`);
            return 1;
        });
    }
    const input = { flags: parsed.flags, env, terminal };
    try {
        if (parsed.command === 'provision')
            return await provisionCommand(input);
        if (parsed.command === 'revoke')
            return await revokeCommand(input);
        return await runCommand(input, parsed.commandLine);
    }
    catch (error) {
        terminal.stderr(`Error: unexpected error in ${parsed.command}: ${(0,describe_error/* describeUnexpected */.V)(error)}. This is a bug in tunnel-credentials; please report it with this output.`);
        return 1;
    }
}


/***/ }),

/***/ 301:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   BM: () => (/* binding */ EARLIER_VARIABLES),
/* harmony export */   EH: () => (/* binding */ CLI_OPTIONS),
/* harmony export */   Et: () => (/* binding */ isSecretOption),
/* harmony export */   N5: () => (/* binding */ RETIRED_OPTIONS),
/* harmony export */   S_: () => (/* binding */ variableFor),
/* harmony export */   Xj: () => (/* binding */ SWITCHES),
/* harmony export */   aA: () => (/* binding */ isFlagName),
/* harmony export */   wE: () => (/* binding */ ACTION_OPTIONS)
/* harmony export */ });
/* unused harmony export SECRET_OPTIONS */
/* harmony import */ var _core_options_option_facts_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(862);

const ACTION_OPTIONS = (0,_core_options_option_facts_js__WEBPACK_IMPORTED_MODULE_0__/* .optionsOf */ .cz)('cli')
    .filter(option => option.hosts.includes('action') && !option.secret)
    .map(option => option.name);
const CLI_OPTIONS = (0,_core_options_option_facts_js__WEBPACK_IMPORTED_MODULE_0__/* .optionsOf */ .cz)('cli')
    .filter(option => !option.hosts.includes('action'))
    .map(option => option.name);
const SECRET_OPTIONS = _core_options_option_facts_js__WEBPACK_IMPORTED_MODULE_0__/* .SECRET_OPTION_NAMES */ .w$;
const RETIRED_OPTIONS = new Map((0,_core_options_option_facts_js__WEBPACK_IMPORTED_MODULE_0__/* .optionsOf */ .cz)('cli').flatMap(option => option.retiredFlag === undefined ? [] : [[option.retiredFlag, option.name]]));
const EARLIER_VARIABLES = Object.fromEntries((0,_core_options_option_facts_js__WEBPACK_IMPORTED_MODULE_0__/* .optionsOf */ .cz)('cli').flatMap(option => option.earlierVariable === undefined ? [] : [[option.name, option.earlierVariable]]));
const SWITCHES = new Set((0,_core_options_option_facts_js__WEBPACK_IMPORTED_MODULE_0__/* .optionsOf */ .cz)('cli')
    .filter(option => option.switch === true)
    .map(option => option.name));
const FLAGS = new Set([...ACTION_OPTIONS, ...CLI_OPTIONS]);
function isFlagName(name) {
    return FLAGS.has(name);
}
function isSecretOption(name) {
    return SECRET_OPTIONS.includes(name);
}
const variableFor = _core_options_option_facts_js__WEBPACK_IMPORTED_MODULE_0__/* .cliVariable */ .Zq;


/***/ }),

/***/ 519:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   h: () => (/* binding */ ExplainedError)
/* harmony export */ });
class ExplainedError extends Error {
    constructor(message) {
        super(message);
        this.name = 'ExplainedError';
    }
}


/***/ }),

/***/ 862:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  $n: () => (/* reexport */ API_KEY_OPTION),
  mO: () => (/* binding */ MULTI_LINE_OPTION_NAMES),
  w$: () => (/* binding */ SECRET_OPTION_NAMES),
  VP: () => (/* binding */ SECRET_VARIABLES),
  zK: () => (/* reexport */ TUNNEL_TOKEN_OPTION),
  Zq: () => (/* binding */ cliVariable),
  Z8: () => (/* binding */ optionDefault),
  Ds: () => (/* binding */ optionFacts),
  cz: () => (/* binding */ optionsOf)
});

// UNUSED EXPORTS: OPTIONS

;// CONCATENATED MODULE: ./core/options/cli-options.ts
const cliOnly = (name, value, defaultValue, description, renamed = {}) => ({
    name,
    hosts: ['cli'],
    default: defaultValue,
    kinds: 'all',
    secret: false,
    value,
    description,
    ...renamed
});
const CLI_ONLY_OPTIONS = [
    cliOnly('variables-file', 'PATH', 'tunnel.env', "the variables, NAME='value' lines, mode 0600 (default tunnel.env; SVC_ENV_FILE, its earlier variable, still works). Not --env-file: Node reads that flag itself, before tunnel-credentials runs", { earlierVariable: 'SVC_ENV_FILE', retiredFlag: 'env-file' }),
    cliOnly('state-file', 'PATH', '.tunnel-credentials.json', 'what revoke needs, no secret (default .tunnel-credentials.json beside the variables file)'),
    cliOnly('outputs-file', 'PATH', '', "the action's outputs as one JSON object, mode 0600"),
    cliOnly('work-dir', 'PATH', '', "where key files and the tunnel's directory go (default: the system's temp directory)"),
    cliOnly('tunnel-max-minutes', 'N', '', "the tunnel ends by itself after N minutes at most (default: the credential's lifetime, or 60 minutes for one without)"),
    cliOnly('shared-credential-file', 'PATH', 'shared.env', 'with --share create, SVC_SHARED_CREDENTIAL=SEALED alone, for the jobs that use it (a GitLab dotenv report); no secret (default shared.env in the working directory)'),
    cliOnly('request-log', 'PATH', 'requests.har', 'with --expose, the request log, a HAR file (default requests.har beside the variables file)')
];

;// CONCATENATED MODULE: ./core/options/credential-options.ts
const API_KEY_OPTION = 'api-key';
const TUNNEL_TOKEN_OPTION = 'tunnel-token';
const inputVariable = (name) => `SVC_INPUT_${name.toUpperCase().replace(/-/g, '_')}`;
const CREDENTIAL_OPTIONS = [
    {
        name: 'credential',
        hosts: ['action', 'cli', 'component'],
        default: 'cicd',
        kinds: 'all',
        secret: false,
        value: 'auto|cicd|free|ssh-key|existing',
        description: '`cicd` (provision a token with the API key), `free` (5-minute token, no key, nothing to revoke), `auto` (`cicd` when `api-key` is set, else `free` with a warning), `ssh-key` (make an SSH key on the runner, upload its public half, revoke it in post) or `existing` (publish the token in `tunnel-token`; nothing requested or revoked).'
    },
    {
        name: API_KEY_OPTION,
        hosts: ['action', 'cli'],
        default: '',
        kinds: ['cicd', 'ssh-key'],
        secret: true,
        value: 'KEY',
        secretHelp: 'the API key (scope cicd:provision)',
        description: 'API key (`sk_` + 64 hex characters). Required when `credential` is `cicd` (the key needs the `cicd:provision` scope) or `ssh-key`. Store it as a secret.'
    },
    {
        name: 'project',
        hosts: ['action', 'cli', 'component'],
        default: '',
        kinds: ['cicd'],
        secret: false,
        value: 'SLUG',
        description: 'Project slug the credential is provisioned for. Required when `credential` is `cicd`.'
    },
    {
        name: 'environment',
        hosts: ['action', 'cli', 'component'],
        default: '',
        kinds: ['cicd'],
        secret: false,
        value: 'NAME',
        description: 'Environment name sent to the service (for example `staging`). Not sent when empty.'
    },
    {
        name: 'ttl-minutes',
        hosts: ['action', 'cli', 'component'],
        default: '',
        kinds: ['cicd'],
        secret: false,
        value: 'N',
        description: "Lifetime of the credential in minutes, a positive whole number. When empty the service's default applies. Not for `ssh-key`, which is refused with it, since the service counts a key's lifetime in whole days; the key is uploaded for 1 day and revoked in post."
    },
    {
        name: 'share',
        hosts: ['action', 'cli', 'component'],
        default: 'off',
        kinds: ['cicd'],
        secret: false,
        value: 'off|create|use|revoke',
        description: 'Share one credential across the jobs of a run (GitHub Actions, GitLab CI). `off`: this job provisions and revokes its own. `create`: provision, set the `shared-credential` output, and leave the credential to the run (requires `ttl-minutes`). `use`: open `shared-credential` instead of provisioning; post stops the tunnel and does not revoke. `revoke`: open `shared-credential` and revoke it (a final job). Only `credential: cicd`. See docs/sharing.md.'
    },
    {
        name: 'shared-credential',
        hosts: ['action', 'cli'],
        default: '',
        kinds: ['cicd'],
        secret: false,
        value: 'SEALED',
        description: 'For `share: use` and `share: revoke`: the `shared-credential` output of the job that ran `share: create`. Sealed (AES-256-GCM) under a key derived from `api-key`, bound to this run and project: not a secret, and useless without the API key.'
    },
    {
        name: 'base-url',
        hosts: ['action', 'cli', 'component'],
        default: '',
        kinds: ['cicd', 'free', 'ssh-key'],
        secret: false,
        value: 'URL',
        description: 'Base URL of the credential service. Required unless `credential` is `existing`, which sends no request. A URL with an empty path gets `/functions/v1` appended. Must be https; http is accepted only for loopback hosts.'
    },
    {
        name: 'revoke',
        hosts: ['action', 'cli'],
        default: 'true',
        kinds: ['cicd', 'ssh-key'],
        secret: false,
        value: 'true|false',
        switch: true,
        description: 'Revoke the token or SSH key in the post step when the job ends.'
    },
    {
        name: 'fail-on-revoke-error',
        hosts: ['action', 'cli'],
        default: 'false',
        kinds: ['cicd', 'ssh-key'],
        secret: false,
        value: 'true|false',
        switch: true,
        description: 'Fail the post step when revoking fails for good, instead of warning.'
    },
    {
        name: 'tunnel-host',
        hosts: ['action', 'cli', 'component'],
        default: '',
        kinds: 'all',
        secret: false,
        value: 'HOST',
        variable: inputVariable('tunnel-host'),
        description: 'Override the tunnel host the service returned (self-hosted tunnel servers). Required when `credential` is `ssh-key` or `existing`, whose tunnel server no answer names.'
    },
    {
        name: 'tunnel-port',
        hosts: ['action', 'cli', 'component'],
        default: '',
        kinds: 'all',
        secret: false,
        value: 'PORT',
        variable: inputVariable('tunnel-port'),
        description: 'Override the tunnel port the service returned (self-hosted tunnel servers). For `ssh-key` and `existing`, `2223` when empty.'
    },
    {
        name: 'client-id',
        hosts: ['action', 'cli', 'component'],
        default: '',
        kinds: ['ssh-key'],
        secret: false,
        value: 'ID',
        description: 'For `credential: ssh-key`, required: the tunnel user (client id) the uploaded key logs in as; sent to `keys-upload` as `client_id`.'
    },
    {
        name: TUNNEL_TOKEN_OPTION,
        hosts: ['action', 'cli'],
        default: '',
        kinds: ['existing'],
        secret: true,
        value: 'TOKEN',
        variable: inputVariable(TUNNEL_TOKEN_OPTION),
        secretHelp: 'the token for --credential existing',
        description: 'For `credential: existing`, required: the tunnel token you already hold (a standard or project token). Masked first thing. Store it as a secret.'
    },
    {
        name: 'tunnel-user',
        hosts: ['action', 'cli'],
        default: '',
        kinds: ['existing'],
        secret: false,
        value: 'USER',
        variable: inputVariable('tunnel-user'),
        description: 'For `credential: existing`, required: the tunnel user the token belongs to.'
    },
    {
        name: 'env-prefix',
        hosts: ['action', 'cli'],
        default: 'SVC',
        kinds: 'all',
        secret: false,
        value: 'PREFIX',
        description: 'Prefix of the exported variables (`[A-Z][A-Z0-9_]*`); `SVC` exports `SVC_TUNNEL_TOKEN` and so on.'
    },
    {
        name: 'export-env',
        hosts: ['action'],
        default: 'true',
        kinds: 'all',
        secret: false,
        value: 'true|false',
        description: 'Export the variables to later steps (`<PREFIX>_TUNNEL_TOKEN`, or `<PREFIX>_TUNNEL_KEY_FILE` for `ssh-key`, with `_USER`, `_HOST` and `_PORT`). When false only the outputs are set.'
    },
    {
        name: 'max-attempts',
        hosts: ['action', 'cli'],
        default: '3',
        kinds: 'all',
        secret: false,
        value: 'N',
        description: 'Attempts per request (1 to 10) on network errors, timeouts, 429 and 5xx answers. With `expose`, also the attempts to open the tunnel.'
    },
    {
        name: 'ca-file',
        hosts: ['cli', 'component'],
        default: '',
        kinds: 'all',
        secret: false,
        value: 'PATH',
        description: "A PEM file of CA certificates trusted besides Node's own for the service's answers and the URL proof, for a runner behind a TLS-inspecting proxy. The component's only way to add trust: it starts the tool without NODE_EXTRA_CA_CERTS or NODE_TLS_REJECT_UNAUTHORIZED."
    },
    {
        name: 'timeout-seconds',
        hosts: ['action', 'cli'],
        default: '30',
        kinds: 'all',
        secret: false,
        value: 'N',
        description: 'Time limit of one HTTP attempt, in seconds (1 to 600). With `expose`, also of one attempt to connect, log in and have every forward accepted.'
    }
];

// EXTERNAL MODULE: ./core/options/tunnel-options.ts
var tunnel_options = __nccwpck_require__(578);
;// CONCATENATED MODULE: ./core/options/option-facts.ts




const OPTIONS = [
    ...CREDENTIAL_OPTIONS,
    ...tunnel_options/* TUNNEL_OPTIONS */.u,
    ...CLI_ONLY_OPTIONS
];
const BY_NAME = new Map(OPTIONS.map(option => [option.name, option]));
function optionFacts(name) {
    return BY_NAME.get(name);
}
function optionsOf(host) {
    return OPTIONS.filter(option => option.hosts.includes(host));
}
const SECRET_OPTION_NAMES = OPTIONS.filter(o => o.secret).map(o => o.name);
const MULTI_LINE_OPTION_NAMES = OPTIONS.filter(o => o.multiLine).map(o => o.name);
function cliVariable(name) {
    return BY_NAME.get(name)?.variable ?? `SVC_${name.toUpperCase().replace(/-/g, '_')}`;
}
const SECRET_VARIABLES = SECRET_OPTION_NAMES.map(cliVariable);
function optionDefault(name) {
    return BY_NAME.get(name)?.default ?? '';
}


/***/ }),

/***/ 897:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   V: () => (/* binding */ REQUEST_HANDLING_DEFAULTS)
/* harmony export */ });
const REQUEST_HANDLING_DEFAULTS = {
    logRequests: true,
    logBodies: 0,
    logHeaders: 'redacted',
    protect: false,
    proveUrl: true
};


/***/ }),

/***/ 578:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   u: () => (/* binding */ TUNNEL_OPTIONS)
/* harmony export */ });
/* harmony import */ var _request_handling_defaults_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(897);

const TUNNEL_OPTIONS = [
    {
        name: 'expose',
        hosts: ['action', 'cli', 'component'],
        default: '',
        kinds: 'all',
        secret: false,
        value: 'web=3000,api=8080',
        multiLine: true,
        description: 'Open the tunnel in this step and expose local apps through it until the job ends. One entry per line or comma-separated: `NAME=PORT`, `NAME=HOST:PORT` (`HOST` as the runner reaches the app: `localhost`, a service container, `[::1]`), or a bare `PORT` as the only entry (named `app`). `NAME` is a lower-case DNS label. Empty: no tunnel.'
    },
    {
        name: 'url-template',
        hosts: ['action', 'cli', 'component'],
        default: '',
        kinds: 'all',
        secret: false,
        value: 'TEMPLATE',
        description: "How an exposed entry's public URL is formed, from `{name}`, `{user}` (tunnel user), `{host}` (tunnel host), `{fqdn}` (the answer's `tunnel_fqdn`, else the tunnel host) and `{port}` (tunnel port). Must give an http(s) URL. Empty: as the tunnel server forms it, from the answer (docs/urls.md)."
    },
    {
        name: 'tunnel-host-key',
        hosts: ['action', 'cli', 'component'],
        default: '',
        kinds: 'all',
        secret: false,
        value: 'PIN',
        multiLine: true,
        description: "The tunnel server's host key: `SHA256:\u2026` fingerprints or known_hosts lines, one per line. A server with another key is left before the token is sent. Empty: the first key is accepted (reconnects then accept only that one), and a notice gives its fingerprint to pin."
    },
    {
        name: 'log-requests',
        hosts: ['action', 'cli', 'component'],
        default: String(_request_handling_defaults_js__WEBPACK_IMPORTED_MODULE_0__/* .REQUEST_HANDLING_DEFAULTS */ .V.logRequests),
        kinds: 'all',
        secret: false,
        value: 'true|false',
        description: 'With `expose`, record every request through the tunnel (time, entry, client address, method, path, status, duration, bytes each way) in a HAR file, the output `request-log`, and in the job summary. `false`: no log, and without `protect` connections are piped raw, as fast as before.'
    },
    {
        name: 'log-bodies',
        hosts: ['action', 'cli', 'component'],
        default: String(_request_handling_defaults_js__WEBPACK_IMPORTED_MODULE_0__/* .REQUEST_HANDLING_DEFAULTS */ .V.logBodies),
        kinds: 'all',
        secret: false,
        value: 'BYTES',
        description: "With `expose` and the log on, keep each request's and answer's body in the log, cut at this many bytes; `0` keeps none. Job summaries and artifacts of public repositories are public: bodies may hold passwords, tokens and personal data."
    },
    {
        name: 'log-headers',
        hosts: ['action', 'cli', 'component'],
        default: _request_handling_defaults_js__WEBPACK_IMPORTED_MODULE_0__/* .REQUEST_HANDLING_DEFAULTS */ .V.logHeaders,
        kinds: 'all',
        secret: false,
        value: 'redacted|unredacted',
        description: 'With `expose` and the log on, `redacted` replaces with `REDACTED` the values of credential headers (`Authorization`, and names holding `token`, `secret`, `password`, `cookie`, `session`, `api-key` and more: docs/traffic.md) and the user-info and query values of URLs; `unredacted` keeps them. Job summaries and artifacts of public repositories are public: keep `redacted` there.'
    },
    {
        name: 'protect',
        hosts: ['action', 'cli', 'component'],
        default: String(_request_handling_defaults_js__WEBPACK_IMPORTED_MODULE_0__/* .REQUEST_HANDLING_DEFAULTS */ .V.protect),
        kinds: 'all',
        secret: false,
        value: 'true|false',
        switch: true,
        description: "With `expose`, put a per-run secret in front of every entry: a request without it gets 401 from the tunnel and never reaches the app. The secret and the forms that carry it are the outputs `protect-secret`, `protect-header`, `protect-urls` and `protect-webhook-urls`; `url` and `urls` stay free of it. Not authentication of the app's users; the tunnel server still sees every request."
    },
    {
        name: 'prove-url',
        hosts: ['action', 'cli', 'component'],
        default: String(_request_handling_defaults_js__WEBPACK_IMPORTED_MODULE_0__/* .REQUEST_HANDLING_DEFAULTS */ .V.proveUrl),
        kinds: 'all',
        secret: false,
        value: 'true|false',
        switch: true,
        description: 'With `expose`, prove before the step ends that each public URL reaches this tunnel: a request from the runner with a per-run nonce, answered by the tunnel without touching the app. A URL that does not fails the step. `false` for runners that cannot reach their own public URL.'
    }
];


/***/ }),

/***/ 659:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   Gx: () => (/* binding */ isMadeUnder),
/* harmony export */   Ih: () => (/* binding */ checkOwnDirectory),
/* harmony export */   Vy: () => (/* binding */ directoryId)
/* harmony export */ });
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(24);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__nccwpck_require__.n(node_fs__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1__ = __nccwpck_require__(760);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__nccwpck_require__.n(node_path__WEBPACK_IMPORTED_MODULE_1__);


function isMadeUnder(path, root, prefix) {
    const full = (0,node_path__WEBPACK_IMPORTED_MODULE_1__.resolve)(path);
    const name = (0,node_path__WEBPACK_IMPORTED_MODULE_1__.basename)(full);
    return ((0,node_path__WEBPACK_IMPORTED_MODULE_1__.dirname)(full) === (0,node_path__WEBPACK_IMPORTED_MODULE_1__.resolve)(root) &&
        name.startsWith(prefix) &&
        /^[A-Za-z0-9]{6}$/.test(name.slice(prefix.length)));
}
function directoryId(path) {
    const stats = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.lstatSync)(path, { bigint: true });
    return `${stats.dev}:${stats.ino}`;
}
function checkOwnDirectory(path, savedId) {
    let stats;
    try {
        stats = (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.lstatSync)(path, { bigint: true });
    }
    catch (error) {
        const missing = error.code === 'ENOENT';
        return { ours: false, missing, reason: missing ? 'it no longer exists' : String(error) };
    }
    const not = (reason) => ({ ours: false, missing: false, reason });
    if (stats.isSymbolicLink())
        return not('it is a symbolic link, not the directory this tool made');
    if (!stats.isDirectory())
        return not('it is not a directory');
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== BigInt(uid)) {
        return not(`it belongs to another user (uid ${stats.uid})`);
    }
    if (savedId === undefined)
        return not('the saved state does not say which directory was made');
    if (`${stats.dev}:${stats.ino}` !== savedId) {
        return not('it is another directory than the one this tool made');
    }
    return { ours: true };
}


/***/ }),

/***/ 854:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   B9: () => (/* binding */ tokenOf),
/* harmony export */   Gv: () => (/* binding */ isObject),
/* harmony export */   Jh: () => (/* binding */ contradictorySpellings),
/* harmony export */   h0: () => (/* binding */ tunnelUserOf)
/* harmony export */ });
function isObject(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function tokenOf(answer) {
    return answer.token ?? answer.tunnel_client_secret;
}
function tunnelUserOf(answer) {
    return answer.tunnel_user ?? answer.tunnel_client_id;
}
const SPELLINGS = [
    ['token', 'tunnel_client_secret'],
    ['tunnel_user', 'tunnel_client_id']
];
function contradictorySpellings(answer) {
    return SPELLINGS.find(([spec, product]) => {
        const first = answer[spec];
        const second = answer[product];
        return first !== undefined && first !== null && second !== undefined && second !== null
            ? first !== second
            : false;
    });
}


/***/ }),

/***/ 570:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   V: () => (/* binding */ secretsIn),
/* harmony export */   h: () => (/* binding */ holdsSecret)
/* harmony export */ });
/* harmony import */ var _answer_fields_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(854);

function secretsIn(raw) {
    if (!(0,_answer_fields_js__WEBPACK_IMPORTED_MODULE_0__/* .isObject */ .Gv)(raw))
        return [];
    return [raw.token, raw.tunnel_client_secret].filter((value) => typeof value === 'string' && value.length > 0);
}
function holdsSecret(value, secrets) {
    return secrets.some(secret => value.includes(secret) ||
        (secret.length >= 8 && shareRun(value, secret, Math.max(8, Math.ceil(secret.length / 2)))));
}
function shareRun(a, b, length) {
    if (a.length < length || b.length < length)
        return false;
    const starts = new Map();
    forEachWindow(b, length, (hash, start) => {
        const list = starts.get(hash);
        if (list)
            list.push(start);
        else
            starts.set(hash, [start]);
        return false;
    });
    return forEachWindow(a, length, (hash, start) => {
        const piece = a.slice(start, start + length);
        return (starts.get(hash) ?? []).some(other => b.startsWith(piece, other));
    });
}
function forEachWindow(text, length, visit) {
    const base = 257;
    let highest = 1;
    for (let i = 1; i < length; i++)
        highest = Math.imul(highest, base);
    let hash = 0;
    for (let i = 0; i < text.length; i++) {
        if (i >= length)
            hash = hash - Math.imul(text.charCodeAt(i - length), highest);
        hash = (Math.imul(hash, base) + text.charCodeAt(i)) | 0;
        if (i >= length - 1 && visit(hash, i - length + 1))
            return true;
    }
    return false;
}


/***/ }),

/***/ 258:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  fA: () => (/* binding */ CredentialService),
  _7: () => (/* reexport */ service_error/* ServiceError */._),
  c$: () => (/* binding */ networkDetail),
  BU: () => (/* binding */ unbracketIpv6Host)
});

// UNUSED EXPORTS: MAX_BODY_BYTES, interpretAnswer

// EXTERNAL MODULE: external "node:http"
var external_node_http_ = __nccwpck_require__(67);
// EXTERNAL MODULE: ../node_modules/@actions/http-client/lib/index.js + 3 modules
var lib = __nccwpck_require__(78);
// EXTERNAL MODULE: ./core/text/printable.ts
var printable = __nccwpck_require__(479);
// EXTERNAL MODULE: ./core/service/service-error.ts
var service_error = __nccwpck_require__(838);
;// CONCATENATED MODULE: ./core/service/answer.ts


function interpretAnswer(endpoint, status, text, retryAfterHeader, nowMs = Date.now()) {
    const parsed = parseJson(text);
    if (status >= 200 && status < 300) {
        if (endpoint === 'revoke-token')
            return parsed;
        if (parsed === undefined) {
            throw new service_error/* ServiceError */._('bad-response', endpoint, text.trim()
                ? `HTTP ${status} with a body that is not JSON (${Buffer.byteLength(text)} bytes, not shown)`
                : `HTTP ${status} with an empty body`, status);
        }
        return parsed;
    }
    const errorObject = typeof parsed === 'object' && parsed !== null ? parsed : {};
    const code = typeof errorObject.code === 'string' ? (0,printable/* cleanText */.X5)(errorObject.code, 40) : undefined;
    const message = typeof errorObject.error === 'string' ? (0,printable/* cleanText */.X5)(errorObject.error, 300) : undefined;
    const retryAfter = readRetryAfter(errorObject.retry_after) ??
        readRetryAfterHeader(firstValue(retryAfterHeader), nowMs);
    const detail = `HTTP ${status}${code ? ` ${code}` : ''}${message ? `: ${message}` : parsed === undefined ? shortBody(text) : ''}`;
    throw new service_error/* ServiceError */._('http', endpoint, detail, status, code, message, retryAfter);
}
function parseJson(text) {
    try {
        return JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
    }
    catch {
        return undefined;
    }
}
function readRetryAfter(value) {
    const number = typeof value === 'number'
        ? value
        : typeof value === 'string' && /^\d+$/.test(value.trim())
            ? Number(value)
            : NaN;
    return Number.isFinite(number) && number >= 0 ? Math.ceil(number) : undefined;
}
function readRetryAfterHeader(value, nowMs) {
    if (value === undefined || !/^[A-Za-z]{3}/.test(value.trim()))
        return readRetryAfter(value);
    const at = Date.parse(value);
    return Number.isFinite(at) ? Math.max(0, Math.ceil((at - nowMs) / 1000)) : undefined;
}
function firstValue(value) {
    return Array.isArray(value) ? value[0] : value;
}
function shortBody(text) {
    const trimmed = text.trim();
    if (!trimmed)
        return ' (empty body)';
    return trimmed.length <= 120
        ? ` (body: ${(0,printable/* cleanText */.X5)(trimmed, 120)})`
        : ` (${Buffer.byteLength(text)} bytes, not shown)`;
}

// EXTERNAL MODULE: ./core/service/extra-ca.ts + 1 modules
var extra_ca = __nccwpck_require__(531);
;// CONCATENATED MODULE: ./core/service/token-list.ts

function readTokenList(raw) {
    const tokens = typeof raw === 'object' && raw !== null ? raw.tokens : undefined;
    if (!Array.isArray(tokens))
        throw unusable('it holds no tokens list');
    return tokens.map((entry, index) => {
        const record = typeof entry === 'object' && entry !== null ? entry : {};
        if (typeof record.tunnel_user !== 'string' || typeof record.status !== 'string') {
            throw unusable(`entry ${index + 1} has no tunnel_user or status text`);
        }
        return { tunnelUser: record.tunnel_user, status: record.status };
    });
}
function unusable(why) {
    return new service_error/* ServiceError */._('bad-response', 'user-tokens-list', `its answer is unusable: ${why}`);
}

// EXTERNAL MODULE: ./core/service/retry.ts
var retry = __nccwpck_require__(652);
// EXTERNAL MODULE: ./core/version.ts
var version = __nccwpck_require__(830);
;// CONCATENATED MODULE: ./core/service/client.ts











const MAX_BODY_BYTES = 1024 * 1024;
class CredentialService {
    options;
    constructor(options) {
        this.options = options;
    }
    provisionCredential(request) {
        const body = { project: request.project };
        if (request.environment)
            body.environment = request.environment;
        if (request.ttlMinutes !== undefined)
            body.ttl_minutes = request.ttlMinutes;
        return this.call('credential-provision', body, { 'X-API-Key': request.apiKey });
    }
    createFreeCredential() {
        return this.call('create-ephemeral-token', undefined, {});
    }
    revokeCredential(apiKey, tunnelUser) {
        return this.revoke('revoke-token', { tunnel_user: tunnelUser }, apiKey);
    }
    uploadKey(request) {
        const body = {
            public_key_ssh: request.publicKeyLine,
            name: request.name,
            expires_in_days: request.expiresInDays
        };
        if (request.clientId)
            body.client_id = request.clientId;
        return this.call('keys-upload', body, { 'X-API-Key': request.apiKey }, request.onRetry);
    }
    listKeys(apiKey) {
        return this.call('user-keys-list', undefined, { 'X-API-Key': apiKey }, undefined, 'GET');
    }
    async listTokens(apiKey) {
        const headers = { 'X-API-Key': apiKey };
        return readTokenList(await this.call('user-tokens-list', undefined, headers, undefined, 'GET'));
    }
    revokeKey(apiKey, keyId) {
        return this.revoke('revoke-ssh-key', { key_id: keyId }, apiKey);
    }
    async revoke(endpoint, body, apiKey) {
        try {
            await this.call(endpoint, body, { 'X-API-Key': apiKey });
            return 'revoked';
        }
        catch (error) {
            if (error instanceof service_error/* ServiceError */._ && error.status === 404)
                return 'already-gone';
            throw error;
        }
    }
    call(endpoint, body, headers, onRetry, method = 'POST') {
        const url = `${this.options.baseUrl}/${endpoint}`;
        const payload = body === undefined ? '' : JSON.stringify(body);
        const allHeaders = {
            ...headers,
            Accept: 'application/json',
            ...(body !== undefined && { 'Content-Type': 'application/json' })
        };
        return (0,retry/* withRetries */.LH)(() => this.attempt(endpoint, method, url, payload, allHeaders), classifyFailure, {
            maxAttempts: this.options.maxAttempts,
            sleep: this.options.sleep,
            random: this.options.random,
            onRetry: info => {
                onRetry?.();
                this.options.onRetry?.(info);
            }
        });
    }
    async attempt(endpoint, method, url, payload, headers) {
        const timeoutMs = this.options.timeoutSeconds * 1000;
        const handlers = [unbracketIpv6Host, ...(this.options.ca ? [(0,extra_ca/* trustCa */.X)(this.options.ca)] : [])];
        const http = new lib/* HttpClient */.Qq(`${version/* ACTION_NAME */.p}/${version/* ACTION_VERSION */.Y}`, handlers, {
            socketTimeout: timeoutMs,
            allowRedirects: false,
            allowRetries: false
        });
        let timer;
        const deadline = new Promise((_, reject) => {
            timer = setTimeout(() => reject(new service_error/* ServiceError */._('timeout', endpoint, `no answer within ${this.options.timeoutSeconds} s`)), timeoutMs);
        });
        try {
            const now = this.options.now ?? Date.now;
            return await Promise.race([
                exchange(http, endpoint, method, url, payload, headers, now),
                deadline
            ]);
        }
        finally {
            clearTimeout(timer);
            http.dispose();
        }
    }
}
async function exchange(http, endpoint, method, url, payload, headers, now) {
    let response;
    try {
        response = await http.request(method, url, method === 'GET' ? null : payload, headers);
    }
    catch (error) {
        throw new service_error/* ServiceError */._('network', endpoint, networkDetail(error));
    }
    let text;
    try {
        text = await readLimitedBody(response, endpoint);
    }
    catch (error) {
        if (error instanceof service_error/* ServiceError */._)
            throw error;
        throw new service_error/* ServiceError */._('network', endpoint, `the connection broke while reading the answer: ${networkDetail(error)}`);
    }
    return interpretAnswer(endpoint, response.message.statusCode ?? 0, text, response.message.headers['retry-after'], now());
}
const unbracketIpv6Host = {
    prepareRequest(options) {
        const host = options.host;
        if (host?.startsWith('[') && host.endsWith(']') && options.agent instanceof external_node_http_.Agent) {
            options.host = host.slice(1, -1);
        }
    },
    canHandleAuthentication: () => false,
    handleAuthentication: () => Promise.reject(new Error('not used'))
};
function classifyFailure(error) {
    if (!(error instanceof service_error/* ServiceError */._))
        return { retryable: false };
    if (error.kind === 'network' || error.kind === 'timeout')
        return { retryable: true };
    if (error.kind === 'http' && error.status !== undefined) {
        const retryable = error.status === 429 || error.status === 408 || error.status >= 500;
        return { retryable, retryAfterSeconds: retryable ? error.retryAfterSeconds : undefined };
    }
    return { retryable: false };
}
async function readLimitedBody(response, endpoint) {
    const declared = Number(response.message.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
        response.message.destroy();
        throw tooLarge(endpoint);
    }
    const chunks = [];
    let size = 0;
    for await (const chunk of response.message) {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
            response.message.destroy();
            throw tooLarge(endpoint);
        }
        chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
}
function tooLarge(endpoint) {
    return new service_error/* ServiceError */._('bad-response', endpoint, `a response body larger than ${MAX_BODY_BYTES / 1024} KiB`);
}
function networkDetail(error) {
    const { code, message } = (typeof error === 'object' && error !== null ? error : {});
    if (typeof message !== 'string')
        return 'unknown network error';
    const shown = (0,printable/* cleanText */.X5)(message, 200);
    return typeof code === 'string' && !shown.includes(code) ? `${code} (${shown})` : shown;
}


/***/ }),

/***/ 464:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  h: () => (/* binding */ DEFAULT_TUNNEL_PORT),
  n: () => (/* binding */ parseCredential)
});

// EXTERNAL MODULE: ./core/errors.ts
var errors = __nccwpck_require__(519);
// EXTERNAL MODULE: ./core/text/iso-time.ts
var iso_time = __nccwpck_require__(87);
// EXTERNAL MODULE: ./core/text/printable.ts
var printable = __nccwpck_require__(479);
// EXTERNAL MODULE: ./core/text/validators.ts
var validators = __nccwpck_require__(45);
// EXTERNAL MODULE: ./core/text/log-commands.ts
var log_commands = __nccwpck_require__(785);
// EXTERNAL MODULE: ./core/service/answer-fields.ts
var answer_fields = __nccwpck_require__(854);
// EXTERNAL MODULE: ./core/service/answer-secrets.ts
var answer_secrets = __nccwpck_require__(570);
// EXTERNAL MODULE: external "node:net"
var external_node_net_ = __nccwpck_require__(30);
;// CONCATENATED MODULE: ./core/service/answer-url.ts

const KNOWN_OWNERSHIP_TYPES = ['shared', 'dedicated', 'self-hosted'];
const DOMAIN_PATTERN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const OWNERSHIP_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
function readAnswerUrlFields(answer, invalid) {
    const { tunnel_fqdn: fqdn, append_user_to_subdomain: append, ownership_type: ownership } = answer;
    const fields = {};
    if (fqdn !== undefined && fqdn !== null) {
        if (typeof fqdn !== 'string' || !DOMAIN_PATTERN.test(fqdn) || (0,external_node_net_.isIP)(fqdn) !== 0) {
            throw invalid('tunnel_fqdn is not a lower-case host name (an IP address cannot hold names)');
        }
        fields.tunnelFqdn = fqdn;
    }
    if (append !== undefined && append !== null) {
        if (typeof append !== 'boolean')
            throw invalid('append_user_to_subdomain is not true or false');
        fields.appendUserToSubdomain = append;
    }
    if (ownership !== undefined && ownership !== null) {
        if (typeof ownership !== 'string' || !OWNERSHIP_PATTERN.test(ownership)) {
            throw invalid(`ownership_type is not a short lower-case word (such as ${KNOWN_OWNERSHIP_TYPES.join(', ')})`);
        }
        fields.ownershipType = ownership;
    }
    return fields;
}

;// CONCATENATED MODULE: ./core/service/credential.ts








const DEFAULT_TUNNEL_PORT = 2223;
function parseCredential(raw, overrides = {}) {
    if (!(0,answer_fields/* isObject */.Gv)(raw)) {
        throw invalid('the body is not a JSON object');
    }
    const contradiction = (0,answer_fields/* contradictorySpellings */.Jh)(raw);
    if (contradiction !== undefined) {
        const [spec, product] = contradiction;
        throw invalid(`${spec} and ${product} differ, so the answer names two credentials`);
    }
    const token = (0,answer_fields/* tokenOf */.B9)(raw);
    const tunnelUser = (0,answer_fields/* tunnelUserOf */.h0)(raw);
    checkSecretLike(token, 'token');
    const secrets = (0,answer_secrets/* secretsIn */.V)(raw);
    checkIdentifier(tunnelUser, 'tunnel_user', secrets);
    const clientId = raw.client_id ?? raw.tunnel_client_id ?? tunnelUser;
    checkIdentifier(clientId, 'client_id', secrets);
    const tunnelHost = overrides.tunnelHost ?? raw.tunnel_host;
    if (tunnelHost === undefined || tunnelHost === null || tunnelHost === '') {
        throw invalid('tunnel_host is missing; set the tunnel-host input if your tunnel server is self-hosted');
    }
    if (typeof tunnelHost !== 'string' || !(0,validators/* isBareHost */.jY)(tunnelHost)) {
        throw invalid('tunnel_host is not a bare hostname or IP address');
    }
    const rawPort = overrides.tunnelPort ?? raw.tunnel_port;
    const portDefaulted = rawPort === undefined || rawPort === null;
    const tunnelPort = portDefaulted ? DEFAULT_TUNNEL_PORT : parsePort(rawPort);
    const expiresAt = optional(raw.expires_at, 'expires_at', iso_time/* isIsoTime */.d, 'an ISO 8601 time');
    const ttlMinutes = optional(raw.ttl_minutes, 'ttl_minutes', isWholeNumber, 'a whole number (0: no expiry)');
    if (ttlMinutes === 0 && expiresAt !== undefined) {
        throw invalid('ttl_minutes is 0 (no expiry), yet expires_at gives an end');
    }
    const projectSlug = optional(raw.project_slug, 'project_slug', isSafeText, 'a plain string without log command markers');
    const urlFields = readAnswerUrlFields(raw, invalid);
    return {
        ...urlFields,
        token: token,
        tunnelUser: tunnelUser,
        clientId: clientId,
        tunnelHost,
        tunnelPort,
        portDefaulted,
        ...(expiresAt !== undefined && { expiresAt }),
        ...(ttlMinutes !== undefined && { ttlMinutes }),
        ...(projectSlug !== undefined && { projectSlug })
    };
}
function checkSecretLike(value, field) {
    const problem = (0,validators/* identifierProblem */.rD)(value);
    if (problem !== undefined)
        throw invalid(`${field} ${problem}`);
}
function checkIdentifier(value, field, secrets) {
    checkSecretLike(value, field);
    if ((0,answer_secrets/* holdsSecret */.h)(value, secrets))
        throw invalid(`${field} holds the token, or a long piece of it`);
    if ((0,log_commands/* holdsCommandMarker */.eK)(value)) {
        throw invalid(`${field} holds a log command marker (such as "::", or "#" followed by "#[" or "#vso[")`);
    }
}
function parsePort(value) {
    const number = typeof value === 'number'
        ? value
        : typeof value === 'string' && /^\d{1,5}$/.test(value)
            ? Number(value)
            : NaN;
    if (!(0,validators/* isPort */.sW)(number)) {
        throw invalid('tunnel_port is not a whole number from 1 to 65535');
    }
    return number;
}
function optional(value, field, check, expected) {
    if (value === undefined || value === null)
        return undefined;
    if (!check(value))
        throw invalid(`${field} is not ${expected}`);
    return value;
}
function isWholeNumber(value) {
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
function isSafeText(value) {
    return (typeof value === 'string' &&
        value.length <= 200 &&
        !(0,printable/* hasUnsafeCharacter */.QR)(value) &&
        (0,printable/* isWellFormed */.UC)(value) &&
        !(0,log_commands/* holdsCommandMarker */.eK)(value));
}
function invalid(what) {
    return new errors/* ExplainedError */.h(`The credential service sent a credential that failed validation: ${what}. Nothing was exported. ` +
        'Check that base-url points at the credential service; if it does, report this to the service operator.');
}


/***/ }),

/***/ 531:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  R: () => (/* binding */ readCaFile),
  X: () => (/* binding */ trustCa)
});

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __nccwpck_require__(24);
;// CONCATENATED MODULE: external "node:tls"
const external_node_tls_namespaceObject = require("node:tls");
// EXTERNAL MODULE: ./core/errors.ts
var errors = __nccwpck_require__(519);
// EXTERNAL MODULE: ./core/text/describe-error.ts
var describe_error = __nccwpck_require__(436);
// EXTERNAL MODULE: ./core/text/printable.ts
var printable = __nccwpck_require__(479);
;// CONCATENATED MODULE: ./core/service/extra-ca.ts





const MAX_CA_FILE_BYTES = 4 << 20;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
function readCaFile(path, label) {
    let text;
    try {
        const bytes = (0,external_node_fs_.readFileSync)(path);
        if (bytes.length > MAX_CA_FILE_BYTES)
            throw new Error('it is larger than 4 MiB');
        text = bytes.toString('utf8');
    }
    catch (error) {
        throw new errors/* ExplainedError */.h(`${label} names ${(0,printable/* printablePath */.Vj)(path)}, which could not be read: ${(0,describe_error/* describeUnexpected */.V)(error)}.`);
    }
    const certificates = text.match(PEM_CERTIFICATE);
    if (certificates === null) {
        throw new errors/* ExplainedError */.h(`${label} names ${(0,printable/* printablePath */.Vj)(path)}, which holds no PEM certificate (-----BEGIN CERTIFICATE-----).`);
    }
    return certificates.join('\n');
}
function trustCa(ca) {
    const trusted = [...external_node_tls_namespaceObject.rootCertificates, ca];
    return {
        prepareRequest(options) {
            const agent = options.agent;
            if (agent?.options)
                agent.options.ca = trusted;
            options.ca = trusted;
        },
        canHandleAuthentication: () => false,
        handleAuthentication: () => Promise.reject(new Error('not used'))
    };
}


/***/ }),

/***/ 652:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   LH: () => (/* binding */ withRetries),
/* harmony export */   Q0: () => (/* binding */ AttemptsExhausted),
/* harmony export */   Zt: () => (/* binding */ RetryAfterTooLong),
/* harmony export */   hz: () => (/* binding */ MAX_RETRY_AFTER_SECONDS)
/* harmony export */ });
/* unused harmony export backoffDelay */
const MAX_RETRY_AFTER_SECONDS = 60;
const BASE_DELAY_MS = 1000;
const MAX_DELAY_MS = 10_000;
class RetryAfterTooLong extends Error {
    cause;
    retryAfterSeconds;
    constructor(cause, retryAfterSeconds) {
        super(`retry_after of ${retryAfterSeconds} s exceeds ${MAX_RETRY_AFTER_SECONDS} s`);
        this.cause = cause;
        this.retryAfterSeconds = retryAfterSeconds;
        this.name = 'RetryAfterTooLong';
    }
}
class AttemptsExhausted extends Error {
    cause;
    attempts;
    constructor(cause, attempts) {
        super(`gave up after ${attempts} attempt(s)`);
        this.cause = cause;
        this.attempts = attempts;
        this.name = 'AttemptsExhausted';
    }
}
async function withRetries(attempt, classify, options) {
    for (let attemptNumber = 1;; attemptNumber++) {
        try {
            return await attempt();
        }
        catch (error) {
            const failure = classify(error);
            if (!failure.retryable)
                throw error;
            if (failure.retryAfterSeconds !== undefined &&
                failure.retryAfterSeconds > MAX_RETRY_AFTER_SECONDS) {
                throw new RetryAfterTooLong(error, failure.retryAfterSeconds);
            }
            if (attemptNumber >= options.maxAttempts)
                throw new AttemptsExhausted(error, attemptNumber);
            const delayMs = backoffDelay(attemptNumber, failure.retryAfterSeconds, options.random);
            options.onRetry?.({
                attempt: attemptNumber,
                maxAttempts: options.maxAttempts,
                delayMs,
                error
            });
            await options.sleep(delayMs);
        }
    }
}
function backoffDelay(attemptNumber, retryAfterSeconds, random) {
    if (retryAfterSeconds !== undefined)
        return Math.max(0, retryAfterSeconds) * 1000;
    const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attemptNumber - 1));
    return Math.round(ceiling / 2 + (ceiling / 2) * random());
}


/***/ }),

/***/ 838:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   _: () => (/* binding */ ServiceError)
/* harmony export */ });
class ServiceError extends Error {
    kind;
    endpoint;
    status;
    code;
    serviceMessage;
    retryAfterSeconds;
    constructor(kind, endpoint, detail, status, code, serviceMessage, retryAfterSeconds) {
        super(detail);
        this.kind = kind;
        this.endpoint = endpoint;
        this.status = status;
        this.code = code;
        this.serviceMessage = serviceMessage;
        this.retryAfterSeconds = retryAfterSeconds;
        this.name = 'ServiceError';
    }
}


/***/ }),

/***/ 337:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  Nr: () => (/* binding */ SPEC_SHAPE_TEMPLATE),
  J1: () => (/* binding */ formatUrl),
  ij: () => (/* binding */ readTunnelSettings)
});

// UNUSED EXPORTS: parseExpose, parseHostKeyPins, parseUrlTemplate

// EXTERNAL MODULE: external "node:net"
var external_node_net_ = __nccwpck_require__(30);
// EXTERNAL MODULE: ./core/text/validators.ts
var validators = __nccwpck_require__(45);
// EXTERNAL MODULE: ./core/errors.ts
var errors = __nccwpck_require__(519);
// EXTERNAL MODULE: ./core/text/printable.ts
var printable = __nccwpck_require__(479);
// EXTERNAL MODULE: ./core/text/quote.ts
var quote = __nccwpck_require__(620);
// EXTERNAL MODULE: ./core/settings/option-values.ts
var option_values = __nccwpck_require__(344);
// EXTERNAL MODULE: ./core/text/log-commands.ts
var log_commands = __nccwpck_require__(785);
// EXTERNAL MODULE: ./core/text/fingerprint.ts
var fingerprint = __nccwpck_require__(196);
// EXTERNAL MODULE: ./core/tunnel/protocol.ts
var protocol = __nccwpck_require__(557);
;// CONCATENATED MODULE: ./core/settings/request-handling.ts




const LONGEST_LOGGED_BODY_BYTES = 64 * 1024 * 1024;
const DEFAULT_REQUEST_HANDLING = {
    requestLog: protocol/* DEFAULT_REQUEST_LOG */.BM,
    protect: protocol/* DEFAULT_PROTECT */.SJ,
    proveUrl: protocol/* DEFAULT_PROVE_URL */.Fe
};
const HEADER_CHOICES = ['redacted', 'unredacted'];
function readRequestHandlingSettings(options) {
    const defaults = DEFAULT_REQUEST_HANDLING;
    const enabled = (0,option_values/* readBoolean */.Vf)(options, 'log-requests', defaults.requestLog.enabled);
    const bodyBytes = (0,option_values/* readWholeNumber */.bf)(options, 'log-bodies', 0, LONGEST_LOGGED_BODY_BYTES) ??
        defaults.requestLog.bodyBytes;
    return {
        requestLog: { enabled, bodyBytes, headers: readHeaderChoice(options) },
        protect: (0,option_values/* readBoolean */.Vf)(options, 'protect', defaults.protect),
        proveUrl: (0,option_values/* readBoolean */.Vf)(options, 'prove-url', defaults.proveUrl)
    };
}
function readHeaderChoice(options) {
    const raw = options.read('log-headers');
    const value = raw.trim().toLowerCase() || DEFAULT_REQUEST_HANDLING.requestLog.headers;
    const choice = HEADER_CHOICES.find(known => known === value);
    if (choice !== undefined)
        return choice;
    throw new errors/* ExplainedError */.h(`${(0,option_values/* optionNamed */.b7)(options, 'log-headers')} is ${(0,quote/* quote */.h)(raw)}: expected redacted or unredacted.`);
}

;// CONCATENATED MODULE: ./core/settings/expose.ts









const SPEC_SHAPE_TEMPLATE = 'https://{name}-{user}.{host}';
const DEFAULT_ENTRY_NAME = 'app';
const DEFAULT_TARGET_HOST = 'localhost';
const NAME_PATTERN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const PLACEHOLDERS = ['name', 'user', 'host', 'fqdn', 'port'];
function parseExpose(raw, label) {
    const texts = raw
        .split(/[\n,]/)
        .map(text => text.trim())
        .filter(text => text !== '');
    const entries = texts.map(text => naming(label('expose'), 'entry', () => parseEntry(text, texts.length)));
    const seen = new Set();
    for (const entry of entries) {
        if (seen.has(entry.name)) {
            throw new errors/* ExplainedError */.h(`${(0,option_values/* capitalised */.Iu)(label('expose'))} names "${entry.name}" more than once: each entry needs its own name, because the name is its public address.`);
        }
        seen.add(entry.name);
    }
    return entries;
}
function parseEntry(text, count) {
    const equals = text.indexOf('=');
    if (equals === -1) {
        if (/^\d+$/.test(text) && count > 1) {
            throw entryError(text, `a bare port is allowed only when it is the only entry; give it a name, as in app=${text}`);
        }
        if (!/^\d+$/.test(text)) {
            throw entryError(text, 'expected NAME=PORT, NAME=HOST:PORT, or a bare PORT');
        }
        return { name: DEFAULT_ENTRY_NAME, host: DEFAULT_TARGET_HOST, port: parsePort(text, text) };
    }
    const name = text.slice(0, equals).trim();
    const target = text.slice(equals + 1).trim();
    if (!NAME_PATTERN.test(name)) {
        throw entryError(text, 'the name must be a lower-case DNS label: letters a-z, digits and inner dashes, 1 to 63 characters');
    }
    return { name, ...parseTarget(target, text) };
}
function parseTarget(target, entry) {
    if (/^\d+$/.test(target))
        return { host: DEFAULT_TARGET_HOST, port: parsePort(target, entry) };
    const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(target);
    if (bracketed) {
        if ((0,external_node_net_.isIP)(bracketed[1]) !== 6) {
            throw entryError(entry, 'square brackets hold an IPv6 address, as in [::1]:3000');
        }
        return { host: bracketed[1], port: parsePort(bracketed[2], entry) };
    }
    const colon = target.lastIndexOf(':');
    const host = colon === -1 ? '' : target.slice(0, colon);
    const port = colon === -1 ? '' : target.slice(colon + 1);
    if (!host || !/^\d+$/.test(port)) {
        throw entryError(entry, 'after NAME= comes PORT or HOST:PORT, as in web=3000 or api=db:8080');
    }
    if ((0,external_node_net_.isIP)(host) === 6) {
        throw entryError(entry, 'write an IPv6 address in square brackets, as in [::1]:3000');
    }
    if (!(0,validators/* isBareHost */.jY)(host)) {
        throw entryError(entry, `${JSON.stringify(host)} is not a host name or IP address`);
    }
    return { host, port: parsePort(port, entry) };
}
function parsePort(text, entry) {
    const port = Number(text);
    if (!/^\d{1,5}$/.test(text) || port < 1 || port > 65535) {
        throw entryError(entry, 'the port must be a whole number from 1 to 65535');
    }
    return port;
}
class PartProblem extends Error {
    part;
    needs;
    constructor(part, needs) {
        super(needs);
        this.part = part;
        this.needs = needs;
    }
}
function naming(optionLabel, partName, parse) {
    try {
        return parse();
    }
    catch (error) {
        if (!(error instanceof PartProblem))
            throw error;
        throw new errors/* ExplainedError */.h(`${(0,option_values/* capitalised */.Iu)(optionLabel)} has the ${partName} ${(0,quote/* quote */.h)(error.part)}: ${error.needs}.`);
    }
}
function entryError(entry, needs) {
    return new PartProblem(entry, needs);
}
function parseUrlTemplate(raw, label) {
    const template = raw.trim();
    if (template === '')
        return '';
    for (const [placeholder, inner] of template.matchAll(/\{([^{}]*)\}/g)) {
        if (!PLACEHOLDERS.includes(inner)) {
            throw new errors/* ExplainedError */.h(`${(0,option_values/* capitalised */.Iu)(label('url-template'))} is ${(0,quote/* quote */.h)(template)}: ${placeholder} is not a placeholder; use {name}, {user}, {host}, {fqdn} and {port}.`);
        }
    }
    const marker = (0,log_commands/* midLineMarkerIn */.U6)(template);
    if (marker !== undefined) {
        throw new errors/* ExplainedError */.h(`${(0,option_values/* capitalised */.Iu)(label('url-template'))} is ${(0,quote/* quote */.h)(template)}: it holds ${(0,log_commands/* describeMarker */.M4)(marker)}, which the log reader of a CI system obeys as a command anywhere in a line. Remove it.`);
    }
    const sample = formatUrl(template, {
        name: 'app',
        user: 'user',
        host: 'tunnel.example',
        fqdn: 'cicd.tunnel.example',
        port: 22
    });
    if (sample === undefined) {
        throw new errors/* ExplainedError */.h(`${(0,option_values/* capitalised */.Iu)(label('url-template'))} is ${(0,quote/* quote */.h)(template)}: it does not form an http or https URL, as in ${SPEC_SHAPE_TEMPLATE}.`);
    }
    return template;
}
function formatUrl(template, values) {
    const text = template.replace(/\{(name|user|host|fqdn|port)\}/g, (_match, key) => String(values[key]));
    if ((0,printable/* hasUnsafeCharacter */.QR)(text))
        return undefined;
    try {
        const url = new URL(text);
        return url.protocol === 'http:' || url.protocol === 'https:' ? text : undefined;
    }
    catch {
        return undefined;
    }
}
function parseHostKeyPins(raw, label) {
    const pins = [];
    for (const line of raw.split(/\r?\n/).map(text => text.trim())) {
        if (line === '' || line.startsWith('#'))
            continue;
        const pin = naming(label('tunnel-host-key'), 'line', () => line.startsWith('SHA256:')
            ? { fingerprint: parseFingerprint(line) }
            : parseKnownHostsLine(line));
        const same = pins.find(known => known.fingerprint === pin.fingerprint);
        if (same === undefined)
            pins.push(pin);
        else
            same.keyType ??= pin.keyType;
    }
    return pins;
}
function parseFingerprint(line) {
    if (!/^SHA256:[A-Za-z0-9+/]{43}=?$/.test(line)) {
        throw pinError(line, 'a fingerprint is SHA256: followed by 43 base64 characters, as `ssh-keygen -lf` prints it');
    }
    return line.replace(/=$/, '');
}
function parseKnownHostsLine(line) {
    const fields = line.split(/\s+/);
    if (fields[0].startsWith('@')) {
        throw pinError(line, `${fields[0]} lines are not supported; give the server's own key or its SHA256 fingerprint`);
    }
    const typeAt = isKeyType(fields[1]) ? 1 : isKeyType(fields[0]) ? 0 : -1;
    const type = fields[typeAt];
    const encoded = fields[typeAt + 1];
    if (typeAt === -1 || encoded === undefined) {
        throw pinError(line, 'expected a SHA256:\u2026 fingerprint or a known_hosts line such as "[tunnel.example]:2223 ssh-ed25519 AAAA\u2026"');
    }
    const blob = Buffer.from(encoded, 'base64');
    if (blob.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '') ||
        (0,fingerprint/* keyTypeOf */.z)(blob) !== type) {
        throw pinError(line, `the key after ${type} is not a valid ${type} key in base64`);
    }
    return { fingerprint: (0,fingerprint/* fingerprintOf */.a)(blob), keyType: type };
}
const isKeyType = (field) => field !== undefined && /^(ssh-|ecdsa-sha2-|sk-)[a-z0-9@.-]+$/.test(field);
function pinError(line, needs) {
    return new PartProblem(line, needs);
}
function readTunnelSettings(options) {
    const label = (name) => options.label(name);
    const urlTemplate = parseUrlTemplate(options.read('url-template'), label);
    const hostKeyPins = parseHostKeyPins(options.read('tunnel-host-key'), label);
    const requestHandling = readRequestHandlingSettings(options);
    const entries = parseExpose(options.read('expose'), label);
    return entries.length === 0
        ? undefined
        : { entries, urlTemplate, hostKeyPins, ...requestHandling };
}


/***/ }),

/***/ 344:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   Iu: () => (/* binding */ capitalised),
/* harmony export */   Vf: () => (/* binding */ readBoolean),
/* harmony export */   b7: () => (/* binding */ optionNamed),
/* harmony export */   bf: () => (/* binding */ readWholeNumber),
/* harmony export */   nN: () => (/* binding */ readOneLine)
/* harmony export */ });
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(519);
/* harmony import */ var _text_quote_js__WEBPACK_IMPORTED_MODULE_1__ = __nccwpck_require__(620);
/* harmony import */ var _text_log_commands_js__WEBPACK_IMPORTED_MODULE_2__ = __nccwpck_require__(785);



function optionNamed(options, name) {
    return capitalised(options.label(name));
}
function capitalised(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
}
function readBoolean(options, name, fallback) {
    const raw = options.read(name);
    const value = raw.trim().toLowerCase();
    if (!value)
        return fallback;
    if (value === 'true')
        return true;
    if (value === 'false')
        return false;
    throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ExplainedError */ .h(`${optionNamed(options, name)} is ${(0,_text_quote_js__WEBPACK_IMPORTED_MODULE_1__/* .quote */ .h)(raw)}: expected true or false.`);
}
function readWholeNumber(options, name, min, max = Number.MAX_SAFE_INTEGER) {
    const raw = options.read(name);
    const value = raw.trim();
    if (!value)
        return undefined;
    const number = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(number) || number < min || number > max) {
        const range = max === Number.MAX_SAFE_INTEGER
            ? `a whole number of at least ${min}`
            : `a whole number from ${min} to ${max}`;
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ExplainedError */ .h(`${optionNamed(options, name)} is ${(0,_text_quote_js__WEBPACK_IMPORTED_MODULE_1__/* .quote */ .h)(raw)}: expected ${range}.`);
    }
    return number;
}
function readOneLine(options, name) {
    const value = options.read(name).trim();
    const marker = (0,_text_log_commands_js__WEBPACK_IMPORTED_MODULE_2__/* .midLineMarkerIn */ .U6)(value);
    if (marker !== undefined) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ExplainedError */ .h(`${optionNamed(options, name)} is ${(0,_text_quote_js__WEBPACK_IMPORTED_MODULE_1__/* .quote */ .h)(value)}: it holds ${(0,_text_log_commands_js__WEBPACK_IMPORTED_MODULE_2__/* .describeMarker */ .M4)(marker)}, which the log reader of a CI system obeys as a command anywhere in a line. Remove it.`);
    }
    return value;
}


/***/ }),

/***/ 436:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   V: () => (/* binding */ describeUnexpected)
/* harmony export */ });
/* harmony import */ var _printable_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(479);

function describeUnexpected(error) {
    const message = error?.message;
    const detail = typeof message === 'string' ? message : String(error);
    return (0,_printable_js__WEBPACK_IMPORTED_MODULE_0__/* .printable */ .g$)(redactErrorText(detail), 300);
}
function redactErrorText(text) {
    const framed = text
        .replace(PEM_BLOCK, '***')
        .replace(URL_USER_INFO, '$1***@')
        .replace(AUTH_SCHEME, '$1 ***')
        .replace(API_KEY_HEADER, '$1 ***');
    return framed
        .split(FILE_PATH)
        .map((piece, index) => (index % 2 === 1 ? redactPath(piece) : (0,_printable_js__WEBPACK_IMPORTED_MODULE_0__/* .redactCredentials */ .UY)(piece)))
        .join('');
}
const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(?:-----END [A-Z0-9 ]+-----|$)/g;
const URL_USER_INFO = /(\b[A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/@]+@/g;
const AUTH_SCHEME = /\b([Bb]earer|[Bb]asic)\s+[^\s,;'"]+/g;
const API_KEY_HEADER = /\b(X-API-Key:?)\s*[^\s,;'"]+/gi;
const FILE_PATH = /((?<![A-Za-z0-9+/=_.~-])(?:~|\.{1,2}|[A-Za-z]:)?(?:[/\\][A-Za-z0-9._@%+=,~-]+)+[/\\]?)/;
function redactPath(path) {
    return path.replace(/[^/\\]+/g, segment => (looksLikeSecret(segment) ? '***' : segment));
}
function looksLikeSecret(segment) {
    if (/^(?:tok|sk)_/.test(segment))
        return true;
    if (/[A-Fa-f0-9]{32,}/.test(segment))
        return true;
    return (segment.match(/[A-Za-z0-9+=]{16,}/g) ?? []).some(run => /[A-Z]/.test(run) && /[a-z]/.test(run) && /\d/.test(run));
}


/***/ }),

/***/ 196:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   a: () => (/* binding */ fingerprintOf),
/* harmony export */   z: () => (/* binding */ keyTypeOf)
/* harmony export */ });
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(598);
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__nccwpck_require__.n(node_crypto__WEBPACK_IMPORTED_MODULE_0__);

function fingerprintOf(blob) {
    return `SHA256:${(0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.createHash)('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}
function keyTypeOf(blob) {
    if (blob.length < 4)
        return undefined;
    const length = blob.readUInt32BE(0);
    return length > 0 && 4 + length <= blob.length
        ? blob.subarray(4, 4 + length).toString('latin1')
        : undefined;
}


/***/ }),

/***/ 87:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   d: () => (/* binding */ isIsoTime),
/* harmony export */   o: () => (/* binding */ hasExpired)
/* harmony export */ });
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/;
function isIsoTime(value) {
    return typeof value === 'string' && ISO_8601.test(value) && Number.isFinite(Date.parse(value));
}
function hasExpired(expiresAt, nowMs) {
    if (!expiresAt)
        return false;
    const at = Date.parse(expiresAt);
    return Number.isFinite(at) && at <= nowMs;
}


/***/ }),

/***/ 785:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   GT: () => (/* binding */ neutraliseMarkers),
/* harmony export */   M4: () => (/* binding */ describeMarker),
/* harmony export */   U6: () => (/* binding */ midLineMarkerIn),
/* harmony export */   eK: () => (/* binding */ holdsCommandMarker)
/* harmony export */ });
/* unused harmony exports LOG_COMMAND_MARKERS, commandMarkerIn */
const LOG_COMMAND_MARKERS = {
    'GitHub Actions': [
        { text: '::', place: 'line-start' },
        { text: '##[', place: 'anywhere' }
    ],
    'Azure Pipelines': [
        { text: '##vso[', place: 'anywhere' },
        { text: '##[', place: 'anywhere' }
    ],
    Buildkite: [
        { text: '---', place: 'line-start' },
        { text: '+++', place: 'line-start' },
        { text: '~~~', place: 'line-start' },
        { text: '^^^', place: 'line-start' }
    ],
    'GitLab CI': [
        { text: 'section_start:', place: 'anywhere' },
        { text: 'section_end:', place: 'anywhere' }
    ],
    Jenkins: [],
    CircleCI: [],
    'Bitbucket Pipelines': []
};
const MARKERS = Object.values(LOG_COMMAND_MARKERS).flat();
const GAP = '[^\\x20-\\x7e]*';
function escapedForRegExp(character) {
    return character.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}
function spelled(characters) {
    return characters.map(escapedForRegExp).join(GAP);
}
function firstCharacterOf(marker) {
    const [first, ...rest] = [...marker.text];
    const completions = [spelled(rest)];
    if (marker.place === 'anywhere') {
        for (let length = 1; length < rest.length; length++) {
            completions.push(`${spelled(rest.slice(0, length))}${GAP}$`);
        }
    }
    const lookahead = `(?=${GAP}(?:${completions.join('|')}))`;
    const lead = marker.place === 'line-start' ? `^([^\\x21-\\x7e]*)` : '()';
    return new RegExp(`${lead}${escapedForRegExp(first)}${lookahead}`, 'giu');
}
let neutralisers;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
function mayHoldMarker(text) {
    if (!PRINTABLE_ASCII.test(text))
        return true;
    const lower = text.toLowerCase();
    const start = lower.replace(/^ +/, '');
    return MARKERS.some(({ text: marker, place }) => {
        if (place === 'line-start')
            return start.startsWith(marker);
        if (lower.includes(marker))
            return true;
        for (let length = 2; length < marker.length; length++) {
            if (lower.endsWith(marker.slice(0, length)))
                return true;
        }
        return false;
    });
}
function neutraliseMarkers(text) {
    if (!mayHoldMarker(text))
        return text;
    neutralisers ??= MARKERS.map(marker => ({ marker, pattern: firstCharacterOf(marker) }));
    return neutralisers.reduce((result, { pattern }) => result.replace(pattern, (match, lead) => `${lead}\\u${match.codePointAt(lead.length).toString(16).padStart(4, '0')}`), text);
}
let anywhere;
function markersIn(value) {
    if (PRINTABLE_ASCII.test(value)) {
        const lower = value.toLowerCase();
        return MARKERS.filter(({ text }) => lower.includes(text));
    }
    anywhere ??= MARKERS.map(marker => ({
        marker,
        pattern: new RegExp(spelled([...marker.text]), 'iu')
    }));
    return anywhere.filter(({ pattern }) => pattern.test(value)).map(({ marker }) => marker);
}
function commandMarkerIn(value) {
    return markersIn(value)[0]?.text;
}
function holdsCommandMarker(value) {
    return commandMarkerIn(value) !== undefined;
}
function describeMarker(marker) {
    return `"${marker[0]}" followed by "${marker.slice(1)}"`;
}
function midLineMarkerIn(value) {
    return markersIn(value).find(marker => marker.place === 'anywhere')?.text;
}


/***/ }),

/***/ 479:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   QR: () => (/* binding */ hasUnsafeCharacter),
/* harmony export */   UC: () => (/* binding */ isWellFormed),
/* harmony export */   UY: () => (/* binding */ redactCredentials),
/* harmony export */   Vj: () => (/* binding */ printablePath),
/* harmony export */   X5: () => (/* binding */ cleanText),
/* harmony export */   g$: () => (/* binding */ printable)
/* harmony export */ });
/* unused harmony exports hasControlCharacter, hasLineBreak */
/* harmony import */ var _log_commands_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(785);

const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
function hasUnsafeCharacter(value) {
    if (PRINTABLE_ASCII.test(value))
        return value.includes(' ');
    return /[\s\p{Cc}\p{Cf}]/u.test(value);
}
function hasControlCharacter(value) {
    return !PRINTABLE_ASCII.test(value) && /\p{Cc}/u.test(value);
}
function hasLineBreak(value) {
    return /[\r\n\u0085\u2028\u2029]/.test(value);
}
function isWellFormed(value) {
    return value.isWellFormed();
}
function printable(value, max = 200) {
    const flat = PRINTABLE_ASCII.test(value)
        ? value
        : value.replace(UNPRINTABLE, character => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const escaped = (0,_log_commands_js__WEBPACK_IMPORTED_MODULE_0__/* .neutraliseMarkers */ .GT)(flat);
    if (escaped.length <= max)
        return escaped;
    const end = /[\uD800-\uDBFF]/.test(escaped[max - 4] ?? '') ? max - 4 : max - 3;
    return `${escaped.slice(0, end)}...`;
}
function printablePath(path) {
    return printable(path, 400);
}
function cleanText(value, max) {
    const redacted = redactCredentials(value);
    const flat = (PRINTABLE_ASCII.test(redacted)
        ? redacted
        : redacted.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' '))
        .replace(/\s+/g, ' ')
        .trim();
    return printable(flat, max);
}
const CREDENTIAL_SHAPED = [
    /\b(?:tok|sk)_[A-Za-z0-9_\-.+/=]*/g,
    /[A-Fa-f0-9]{8,}/g,
    /[A-Za-z0-9+/_-]{24,}={0,2}/g
];
function redactCredentials(text) {
    return CREDENTIAL_SHAPED.reduce((result, pattern) => result.replace(pattern, '***'), text);
}


/***/ }),

/***/ 620:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   h: () => (/* binding */ quote)
/* harmony export */ });
/* harmony import */ var _printable_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(479);

function quote(value, max = 60) {
    return `"${(0,_printable_js__WEBPACK_IMPORTED_MODULE_0__/* .printable */ .g$)(value, max)}"`;
}


/***/ }),

/***/ 45:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   VS: () => (/* binding */ isCleanIdentifier),
/* harmony export */   jY: () => (/* binding */ isBareHost),
/* harmony export */   rD: () => (/* binding */ identifierProblem),
/* harmony export */   sW: () => (/* binding */ isPort)
/* harmony export */ });
/* harmony import */ var node_net__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(30);
/* harmony import */ var node_net__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__nccwpck_require__.n(node_net__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var _printable_js__WEBPACK_IMPORTED_MODULE_1__ = __nccwpck_require__(479);


const HOSTNAME_PATTERN = /^(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
function isBareHost(value) {
    if ((0,node_net__WEBPACK_IMPORTED_MODULE_0__.isIP)(value) !== 0)
        return true;
    return HOSTNAME_PATTERN.test(value);
}
function isPort(value) {
    return Number.isInteger(value) && value >= 1 && value <= 65535;
}
function isCleanIdentifier(value) {
    return identifierProblem(value) === undefined;
}
function identifierProblem(value) {
    if (value === undefined || value === null || value === '')
        return 'is missing';
    if (typeof value !== 'string')
        return 'is not a string';
    if ((0,_printable_js__WEBPACK_IMPORTED_MODULE_1__/* .hasUnsafeCharacter */ .QR)(value))
        return 'holds whitespace or control characters';
    if (!(0,_printable_js__WEBPACK_IMPORTED_MODULE_1__/* .isWellFormed */ .UC)(value))
        return 'is not well-formed Unicode';
    return undefined;
}


/***/ }),

/***/ 956:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   N: () => (/* binding */ TunnelStartError),
/* harmony export */   q: () => (/* binding */ describeStartFailure)
/* harmony export */ });
/* harmony import */ var _text_printable_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(479);
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_1__ = __nccwpck_require__(519);


class TunnelStartError extends _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .ExplainedError */ .h {
    failure;
    detail;
    constructor(message, failure, detail = '') {
        super(message);
        this.failure = failure;
        this.detail = detail;
        this.name = 'TunnelStartError';
    }
}
function describeStartFailure(outcome, lastLogLine, tempRootName, { hostKeyOption = 'tunnel-host-key', exposeOption = 'expose' } = {}) {
    if (outcome.type === 'ready')
        return 'The tunnel started.';
    const detail = (0,_text_printable_js__WEBPACK_IMPORTED_MODULE_0__/* .printable */ .g$)(outcome.detail, 400);
    if (outcome.type === 'died') {
        return `The tunnel did not start: ${detail}. The last line of its log: ${(0,_text_printable_js__WEBPACK_IMPORTED_MODULE_0__/* .printable */ .g$)(lastLogLine, 300)}. Please report this if it recurs.`;
    }
    switch (outcome.cause) {
        case 'host-key':
            return `The tunnel did not start: ${detail}, so the connection was left before the token was sent. If the server changed its key, update ${hostKeyOption}; if not, something between the runner and the server may be intercepting the connection.`;
        case 'auth':
            return `The tunnel did not start: ${detail}. The credential may have been revoked or have expired already; run the job again, and check tunnel-host and tunnel-port if they are overridden.`;
        case 'forward':
            if (outcome.nameTaken === true && outcome.name !== undefined) {
                return `The tunnel did not start: the name ${(0,_text_printable_js__WEBPACK_IMPORTED_MODULE_0__/* .printable */ .g$)(outcome.name, 80)} is taken on the tunnel server, by another job sharing this credential or by another tunnel. Give each job its own names in ${exposeOption}, e.g. web-\${{ strategy.job-index }} on GitHub or web-{index} with the GitLab component.`;
            }
            if (outcome.forwardLimit !== undefined) {
                return `The tunnel did not start: ${detail}. Expose fewer entries, or run fewer jobs that expose at once with one shared credential.`;
            }
            return `The tunnel did not start: ${detail}. The name may be in use: by another tunnel of this user, or, where the URLs do not carry the user, of anyone on that server. Or the server limits how many forwards one tunnel user holds (an SSH refusal gives no reason). Choose another name in expose, or expose fewer entries.`;
        case 'timeout':
            return `The tunnel did not start: ${detail}. Check that the runner can reach the tunnel server, or raise timeout-seconds and max-attempts.`;
        case 'connect':
            return `The tunnel did not start: could not connect to the tunnel server (${detail}). Check tunnel-host and tunnel-port, and that the runner may open outgoing SSH connections.`;
        case 'record':
            return `The tunnel did not start: ${detail}; without it, the tunnel could not be stopped cleanly when the job ends, nor say what it did. Free some space in ${tempRootName} (or make it writable) and run the job again.`;
    }
}


/***/ }),

/***/ 845:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   $r: () => (/* binding */ targetOf),
/* harmony export */   s2: () => (/* binding */ urlsFor),
/* harmony export */   xX: () => (/* binding */ checkUrlsBeforeRequest)
/* harmony export */ });
/* unused harmony export hostProblem */
/* harmony import */ var node_net__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(30);
/* harmony import */ var node_net__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__nccwpck_require__.n(node_net__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var _service_credential_js__WEBPACK_IMPORTED_MODULE_1__ = __nccwpck_require__(464);
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_2__ = __nccwpck_require__(519);
/* harmony import */ var _text_printable_js__WEBPACK_IMPORTED_MODULE_3__ = __nccwpck_require__(479);
/* harmony import */ var _text_quote_js__WEBPACK_IMPORTED_MODULE_4__ = __nccwpck_require__(620);
/* harmony import */ var _settings_expose_js__WEBPACK_IMPORTED_MODULE_5__ = __nccwpck_require__(337);
/* harmony import */ var _settings_option_values_js__WEBPACK_IMPORTED_MODULE_6__ = __nccwpck_require__(344);







class UrlError extends _errors_js__WEBPACK_IMPORTED_MODULE_2__/* .ExplainedError */ .h {
    showsUrl;
    constructor(message, showsUrl) {
        super(message);
        this.showsUrl = showsUrl;
    }
}
const LABEL_CHARACTERS = /^[a-z0-9-]*$/;
const STAND_IN_USER = 'u';
function urlsFor(tunnel, target, label, inputEmpty = false) {
    const urls = {};
    for (const entry of tunnel.entries) {
        const { user, host, port } = target;
        const fqdn = target.fqdn ?? host;
        const url = (0,_settings_expose_js__WEBPACK_IMPORTED_MODULE_5__/* .formatUrl */ .J1)(tunnel.urlTemplate, { name: entry.name, user, host, fqdn, port });
        if (url === undefined) {
            throw noUrl(tunnel.urlTemplate, entry.name, target.host, label, inputEmpty);
        }
        const problem = hostProblem(tunnel.urlTemplate, new URL(url).hostname);
        if (problem !== undefined)
            throw badHost(url, entry.name, problem, target, label);
        urls[entry.name] = url;
    }
    return urls;
}
function targetOf(login) {
    const { user, host, port, userFrom } = login;
    const fqdn = login.answerUrl?.tunnelFqdn;
    return { user, host, port, ...(fqdn !== undefined && { fqdn }), ...(userFrom && { userFrom }) };
}
function checkUrlsBeforeRequest(settings) {
    if (settings.tunnel === undefined || settings.tunnelHost === undefined)
        return;
    const port = settings.tunnelPort ?? _service_credential_js__WEBPACK_IMPORTED_MODULE_1__/* .DEFAULT_TUNNEL_PORT */ .h;
    const known = 'knownUser' in settings ? settings.knownUser : undefined;
    const template = templateBeforeAnswer(settings.tunnel.urlTemplate, known === undefined);
    if (template === undefined)
        return;
    const target = known
        ? { user: known.name, host: settings.tunnelHost, port, userFrom: known.from }
        :
            { user: STAND_IN_USER, host: settings.tunnelHost, port, standIn: true };
    try {
        urlsFor({ ...settings.tunnel, urlTemplate: template }, target, settings.optionLabel, settings.tunnel.urlTemplate === '');
    }
    catch (error) {
        if (!(error instanceof UrlError))
            throw error;
        const standIn = target.standIn === true && error.showsUrl
            ? ` (The service names the tunnel user; "${STAND_IN_USER}" stood in for it here.)`
            : '';
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_2__/* .ExplainedError */ .h(`${error.message} Nothing was requested from the credential service.${standIn}`);
    }
}
function templateBeforeAnswer(urlTemplate, answerMayChoose) {
    if (urlTemplate === '') {
        return answerMayChoose ? 'https://{name}.{host}' : _settings_expose_js__WEBPACK_IMPORTED_MODULE_5__/* .SPEC_SHAPE_TEMPLATE */ .Nr;
    }
    return answerMayChoose && urlTemplate.includes('{fqdn}') ? undefined : urlTemplate;
}
function hostProblem(template, hostname) {
    const host = hostname.replace(/^\[(.*)\]$/, '$1');
    if ((0,node_net__WEBPACK_IMPORTED_MODULE_0__.isIP)(host) !== 0) {
        const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(template)?.[1] ?? '';
        return /\{(name|user)\}/.test(authority)
            ? `it is an IP address built from {name} or {user}`
            : undefined;
    }
    const name = host.endsWith('.') ? host.slice(0, -1) : host;
    if (name.length > 253)
        return `it is ${name.length} characters long, and a host name has at most 253`;
    for (const label of name.split('.')) {
        const problem = labelProblem(label);
        if (problem !== undefined)
            return problem;
    }
    return undefined;
}
function labelProblem(label) {
    const shown = `the label "${(0,_text_printable_js__WEBPACK_IMPORTED_MODULE_3__/* .printable */ .g$)(label, 70)}"`;
    if (label === '')
        return 'it has an empty label (two dots in a row, or a dot at its start)';
    if (label.length > 63)
        return `${shown} is ${label.length} characters long, and a label has at most 63`;
    if (!LABEL_CHARACTERS.test(label)) {
        const character = [...label].find(c => !/[a-z0-9-]/.test(c)) ?? '';
        return `${shown} holds ${characterName(character)}, which a host name cannot`;
    }
    if (label.startsWith('-') || label.endsWith('-')) {
        return `${shown} ${label.startsWith('-') ? 'starts' : 'ends'} with a hyphen, which a host name cannot`;
    }
    return undefined;
}
function characterName(character) {
    if (character === '_')
        return 'an underscore';
    if (character === '%')
        return 'a percent sign';
    return `the character "${(0,_text_printable_js__WEBPACK_IMPORTED_MODULE_3__/* .printable */ .g$)(character, 12)}"`;
}
function noUrl(template, name, host, label, inputEmpty) {
    const why = (0,node_net__WEBPACK_IMPORTED_MODULE_0__.isIP)(host) === 0
        ? ''
        : (0,node_net__WEBPACK_IMPORTED_MODULE_0__.isIP)(host) === 4
            ? ': the tunnel host is an IPv4 address, which cannot be one part of a longer host name'
            : ': the tunnel host is an IPv6 address, which a URL holds only in square brackets';
    return new UrlError(`${(0,_settings_option_values_js__WEBPACK_IMPORTED_MODULE_6__/* .capitalised */ .Iu)(label('url-template'))} ${inputEmpty ? `is empty, and the form it stands for, ${(0,_text_quote_js__WEBPACK_IMPORTED_MODULE_4__/* .quote */ .h)(template, 120)},` : (0,_text_quote_js__WEBPACK_IMPORTED_MODULE_4__/* .quote */ .h)(template, 120)} does not form a URL for "${name}" with tunnel host ${host}${why}. ` +
        `Set ${label('url-template')} to the form of the addresses your tunnel server serves forwards at (with an IP address, ` +
        `as in http://{host}:8080/{name}, or http://[{host}]/{name} for IPv6), or set ${label('tunnel-host')} to its host name.`, false);
}
function badHost(url, name, problem, target, label) {
    const user = target.user.toLowerCase();
    const fromUser = target.standIn !== true &&
        new URL(url).hostname
            .split('.')
            .some(label => label.includes(user) && labelProblem(label) !== undefined);
    const keepUserOut = `change ${label('url-template')} so that {user} is not part of the host name`;
    const from = target.userFrom;
    const advice = !fromUser
        ? `Change ${label('url-template')} so that every dot-separated label of the host is letters, digits and inner hyphens.`
        : from?.changeable
            ? `The tunnel user comes from ${from.label}: set it to lower-case letters, digits and inner hyphens, or ${keepUserOut}.`
            : from
                ? `The tunnel user comes from ${from.label}, and your token belongs to it: ${keepUserOut}.`
                : `The tunnel user ${(0,_text_quote_js__WEBPACK_IMPORTED_MODULE_4__/* .quote */ .h)(target.user, 120)} comes from the credential service: ${keepUserOut}.`;
    return new UrlError(`${(0,_settings_option_values_js__WEBPACK_IMPORTED_MODULE_6__/* .capitalised */ .Iu)(label('url-template'))} forms ${(0,_text_quote_js__WEBPACK_IMPORTED_MODULE_4__/* .quote */ .h)(url, 120)} for "${name}", whose host is not a valid host name: ${problem}. ${advice}`, true);
}


/***/ }),

/***/ 557:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   BM: () => (/* binding */ DEFAULT_REQUEST_LOG),
/* harmony export */   Fe: () => (/* binding */ DEFAULT_PROVE_URL),
/* harmony export */   J4: () => (/* binding */ readyWaitMs),
/* harmony export */   SJ: () => (/* binding */ DEFAULT_PROTECT),
/* harmony export */   SS: () => (/* binding */ TUNNEL_DIR_PREFIX),
/* harmony export */   Ts: () => (/* binding */ STOP_GRACE_MS),
/* harmony export */   Wh: () => (/* binding */ GATE_HEADER),
/* harmony export */   bq: () => (/* binding */ proofAnswer),
/* harmony export */   df: () => (/* binding */ PROOF_WINDOW_MS),
/* harmony export */   hc: () => (/* binding */ gateCookieValue),
/* harmony export */   ok: () => (/* binding */ PROOF_PATH_PREFIX),
/* harmony export */   y4: () => (/* binding */ PROOF_ATTEMPT_TIMEOUT_MS),
/* harmony export */   yJ: () => (/* binding */ tunnelFiles),
/* harmony export */   zN: () => (/* binding */ GATE_PATH_PREFIX)
/* harmony export */ });
/* unused harmony exports GATE_COOKIE_NAME, GATE_COOKIE_SECURE_NAME, PROOF_NONCES_KEPT_MS, HEARTBEAT_MS, STOP_FILE_CHECK_MS, LONGEST_RECONNECT_DELAY_MS, RECONNECT_JITTER */
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(598);
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__nccwpck_require__.n(node_crypto__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1__ = __nccwpck_require__(760);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__nccwpck_require__.n(node_path__WEBPACK_IMPORTED_MODULE_1__);
/* harmony import */ var _options_request_handling_defaults_js__WEBPACK_IMPORTED_MODULE_2__ = __nccwpck_require__(897);



const GATE_HEADER = 'X-Tunnel-Gate';
const GATE_PATH_PREFIX = '/_tunnel-gate/';
const GATE_COOKIE_NAME = 'tunnel-credentials-gate';
const GATE_COOKIE_SECURE_NAME = (/* unused pure expression or super */ null && (`__Host-${GATE_COOKIE_NAME}`));
function gateCookieValue(gateSecret) {
    return (0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.createHmac)('sha256', gateSecret).update('gate-cookie').digest('base64url');
}
const PROOF_PATH_PREFIX = '/.well-known/tunnel-credentials-proof/';
function proofAnswer(proofKey, entry, nonce) {
    return (0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.createHmac)('sha256', proofKey).update(`${entry}\n${nonce}`).digest('hex');
}
const PROOF_WINDOW_MS = 20_000;
const PROOF_ATTEMPT_TIMEOUT_MS = 10_000;
const PROOF_NONCES_KEPT_MS = PROOF_WINDOW_MS + PROOF_ATTEMPT_TIMEOUT_MS + 10_000;
const DEFAULT_REQUEST_LOG = {
    enabled: _options_request_handling_defaults_js__WEBPACK_IMPORTED_MODULE_2__/* .REQUEST_HANDLING_DEFAULTS */ .V.logRequests,
    bodyBytes: _options_request_handling_defaults_js__WEBPACK_IMPORTED_MODULE_2__/* .REQUEST_HANDLING_DEFAULTS */ .V.logBodies,
    headers: _options_request_handling_defaults_js__WEBPACK_IMPORTED_MODULE_2__/* .REQUEST_HANDLING_DEFAULTS */ .V.logHeaders
};
const DEFAULT_PROTECT = _options_request_handling_defaults_js__WEBPACK_IMPORTED_MODULE_2__/* .REQUEST_HANDLING_DEFAULTS */ .V.protect;
const DEFAULT_PROVE_URL = _options_request_handling_defaults_js__WEBPACK_IMPORTED_MODULE_2__/* .REQUEST_HANDLING_DEFAULTS */ .V.proveUrl;
const TUNNEL_DIR_PREFIX = 'tunnel-';
function tunnelFiles(dir) {
    return {
        logPath: (0,node_path__WEBPACK_IMPORTED_MODULE_1__.join)(dir, 'tunnel.log'),
        statsPath: (0,node_path__WEBPACK_IMPORTED_MODULE_1__.join)(dir, 'stats.json'),
        stopPath: (0,node_path__WEBPACK_IMPORTED_MODULE_1__.join)(dir, 'stop'),
        spoolPath: (0,node_path__WEBPACK_IMPORTED_MODULE_1__.join)(dir, 'requests.spool'),
        tallyPath: (0,node_path__WEBPACK_IMPORTED_MODULE_1__.join)(dir, 'requests-tally.json')
    };
}
const HEARTBEAT_MS = 5_000;
const STOP_GRACE_MS = 5_000;
const STOP_FILE_CHECK_MS = 250;
const LONGEST_RECONNECT_DELAY_MS = 30_000;
const RECONNECT_JITTER = 0.25;
const BETWEEN_ATTEMPTS_MS = LONGEST_RECONNECT_DELAY_MS * (1 + RECONNECT_JITTER) + 1_000;
function readyWaitMs(attemptTimeoutMs, maxAttempts) {
    return maxAttempts * attemptTimeoutMs + (maxAttempts - 1) * BETWEEN_ATTEMPTS_MS + 5_000;
}


/***/ }),

/***/ 900:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  eO: () => (/* binding */ clearTunnel),
  Lc: () => (/* binding */ loadTunnel),
  Y_: () => (/* binding */ saveTunnel)
});

// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __nccwpck_require__(760);
// EXTERNAL MODULE: ./core/owned-dir.ts
var owned_dir = __nccwpck_require__(659);
// EXTERNAL MODULE: ./core/tunnel/protocol.ts
var protocol = __nccwpck_require__(557);
;// CONCATENATED MODULE: ./core/tunnel/saved/accepted-dir.ts



function isTunnelDir(dir, root) {
    return (0,owned_dir/* isMadeUnder */.Gx)(dir, root, protocol/* TUNNEL_DIR_PREFIX */.SS);
}
function isTunnelDirName(dir) {
    return (0,owned_dir/* isMadeUnder */.Gx)(dir, (0,external_node_path_.dirname)((0,external_node_path_.resolve)(dir)), protocol/* TUNNEL_DIR_PREFIX */.SS);
}

;// CONCATENATED MODULE: ./core/tunnel/saved/saved-tunnel.ts


const TUNNEL = 'tunnel';
function saveTunnel(state, saved) {
    state.save(TUNNEL, JSON.stringify(saved));
}
function clearTunnel(state) {
    state.save(TUNNEL, '');
}
function loadTunnel(state, tempRoot) {
    const raw = state.load(TUNNEL);
    if (!raw)
        return undefined;
    try {
        const saved = JSON.parse(raw);
        const { pid, dir, dirId, startTime } = saved;
        if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0)
            return undefined;
        if (typeof dir !== 'string' || !(0,external_node_path_.isAbsolute)(dir) || !isTunnelDirName(dir))
            return undefined;
        const text = (value) => (typeof value === 'string' && value !== '' ? value : undefined);
        const tunnel = {
            pid,
            dir,
            ...(text(dirId) && { dirId: text(dirId) }),
            ...(text(startTime) && { startTime: text(startTime) }),
            started: saved.started === true
        };
        if (isTunnelDir(dir, tempRoot))
            return { saved: tunnel };
        return { saved: tunnel, dirRefused: "it is not under this step's temp folder" };
    }
    catch {
        return undefined;
    }
}


/***/ }),

/***/ 830:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   Y: () => (/* binding */ ACTION_VERSION),
/* harmony export */   p: () => (/* binding */ ACTION_NAME)
/* harmony export */ });
const ACTION_NAME = 'provision-tunnel-credentials';
const ACTION_VERSION = '1.0.0';


/***/ }),

/***/ 613:
/***/ ((module) => {

module.exports = require("assert");

/***/ }),

/***/ 434:
/***/ ((module) => {

module.exports = require("events");

/***/ }),

/***/ 611:
/***/ ((module) => {

module.exports = require("http");

/***/ }),

/***/ 692:
/***/ ((module) => {

module.exports = require("https");

/***/ }),

/***/ 278:
/***/ ((module) => {

module.exports = require("net");

/***/ }),

/***/ 421:
/***/ ((module) => {

module.exports = require("node:child_process");

/***/ }),

/***/ 598:
/***/ ((module) => {

module.exports = require("node:crypto");

/***/ }),

/***/ 24:
/***/ ((module) => {

module.exports = require("node:fs");

/***/ }),

/***/ 455:
/***/ ((module) => {

module.exports = require("node:fs/promises");

/***/ }),

/***/ 67:
/***/ ((module) => {

module.exports = require("node:http");

/***/ }),

/***/ 708:
/***/ ((module) => {

module.exports = require("node:https");

/***/ }),

/***/ 30:
/***/ ((module) => {

module.exports = require("node:net");

/***/ }),

/***/ 760:
/***/ ((module) => {

module.exports = require("node:path");

/***/ }),

/***/ 756:
/***/ ((module) => {

module.exports = require("tls");

/***/ }),

/***/ 23:
/***/ ((module) => {

module.exports = require("util");

/***/ }),

/***/ 78:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  Qq: () => (/* binding */ HttpClient)
});

// UNUSED EXPORTS: Headers, HttpClientError, HttpClientResponse, HttpCodes, MediaTypes, getProxyUrl, isHttps

// EXTERNAL MODULE: external "http"
var external_http_ = __nccwpck_require__(611);
var external_http_namespaceObject = /*#__PURE__*/__nccwpck_require__.t(external_http_, 2);
// EXTERNAL MODULE: external "https"
var external_https_ = __nccwpck_require__(692);
var external_https_namespaceObject = /*#__PURE__*/__nccwpck_require__.t(external_https_, 2);
;// CONCATENATED MODULE: ../node_modules/@actions/http-client/lib/proxy.js
function getProxyUrl(reqUrl) {
    const usingSsl = reqUrl.protocol === 'https:';
    if (checkBypass(reqUrl)) {
        return undefined;
    }
    const proxyVar = (() => {
        if (usingSsl) {
            return process.env['https_proxy'] || process.env['HTTPS_PROXY'];
        }
        else {
            return process.env['http_proxy'] || process.env['HTTP_PROXY'];
        }
    })();
    if (proxyVar) {
        try {
            return new DecodedURL(proxyVar);
        }
        catch (_a) {
            if (!proxyVar.startsWith('http://') && !proxyVar.startsWith('https://'))
                return new DecodedURL(`http://${proxyVar}`);
        }
    }
    else {
        return undefined;
    }
}
function checkBypass(reqUrl) {
    if (!reqUrl.hostname) {
        return false;
    }
    const reqHost = reqUrl.hostname;
    if (isLoopbackAddress(reqHost)) {
        return true;
    }
    const noProxy = process.env['no_proxy'] || process.env['NO_PROXY'] || '';
    if (!noProxy) {
        return false;
    }
    // Determine the request port
    let reqPort;
    if (reqUrl.port) {
        reqPort = Number(reqUrl.port);
    }
    else if (reqUrl.protocol === 'http:') {
        reqPort = 80;
    }
    else if (reqUrl.protocol === 'https:') {
        reqPort = 443;
    }
    // Format the request hostname and hostname with port
    const upperReqHosts = [reqUrl.hostname.toUpperCase()];
    if (typeof reqPort === 'number') {
        upperReqHosts.push(`${upperReqHosts[0]}:${reqPort}`);
    }
    // Compare request host against noproxy
    for (const upperNoProxyItem of noProxy
        .split(',')
        .map(x => x.trim().toUpperCase())
        .filter(x => x)) {
        if (upperNoProxyItem === '*' ||
            upperReqHosts.some(x => x === upperNoProxyItem ||
                x.endsWith(`.${upperNoProxyItem}`) ||
                (upperNoProxyItem.startsWith('.') &&
                    x.endsWith(`${upperNoProxyItem}`)))) {
            return true;
        }
    }
    return false;
}
function isLoopbackAddress(host) {
    const hostLower = host.toLowerCase();
    return (hostLower === 'localhost' ||
        hostLower.startsWith('127.') ||
        hostLower.startsWith('[::1]') ||
        hostLower.startsWith('[0:0:0:0:0:0:0:1]'));
}
class DecodedURL extends URL {
    constructor(url, base) {
        super(url, base);
        this._decodedUsername = decodeURIComponent(super.username);
        this._decodedPassword = decodeURIComponent(super.password);
    }
    get username() {
        return this._decodedUsername;
    }
    get password() {
        return this._decodedPassword;
    }
}
//# sourceMappingURL=proxy.js.map
;// CONCATENATED MODULE: ./bundle/tunnel-on-demand.ts
let loaded;
function tunnelPackage() {
    loaded ??= __nccwpck_require__(488);
    return loaded;
}
const httpOverHttp = options => tunnelPackage().httpOverHttp(options);
const httpsOverHttp = options => tunnelPackage().httpsOverHttp(options);
const httpOverHttps = options => tunnelPackage().httpOverHttps(options);
const httpsOverHttps = options => tunnelPackage().httpsOverHttps(options);

;// CONCATENATED MODULE: ./bundle/undici-stub.ts
class ProxyAgent {
    constructor() {
        throw new Error('undici is not bundled with this action: HttpClient.getAgentDispatcher() is unsupported here. ' +
            'Requests (proxies included) go through Node http/https agents instead.');
    }
}

;// CONCATENATED MODULE: ../node_modules/@actions/http-client/lib/index.js
/* eslint-disable @typescript-eslint/no-explicit-any */
var __awaiter = (undefined && undefined.__awaiter) || function (thisArg, _arguments, P, generator) {
    function adopt(value) { return value instanceof P ? value : new P(function (resolve) { resolve(value); }); }
    return new (P || (P = Promise))(function (resolve, reject) {
        function fulfilled(value) { try { step(generator.next(value)); } catch (e) { reject(e); } }
        function rejected(value) { try { step(generator["throw"](value)); } catch (e) { reject(e); } }
        function step(result) { result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected); }
        step((generator = generator.apply(thisArg, _arguments || [])).next());
    });
};





var HttpCodes;
(function (HttpCodes) {
    HttpCodes[HttpCodes["OK"] = 200] = "OK";
    HttpCodes[HttpCodes["MultipleChoices"] = 300] = "MultipleChoices";
    HttpCodes[HttpCodes["MovedPermanently"] = 301] = "MovedPermanently";
    HttpCodes[HttpCodes["ResourceMoved"] = 302] = "ResourceMoved";
    HttpCodes[HttpCodes["SeeOther"] = 303] = "SeeOther";
    HttpCodes[HttpCodes["NotModified"] = 304] = "NotModified";
    HttpCodes[HttpCodes["UseProxy"] = 305] = "UseProxy";
    HttpCodes[HttpCodes["SwitchProxy"] = 306] = "SwitchProxy";
    HttpCodes[HttpCodes["TemporaryRedirect"] = 307] = "TemporaryRedirect";
    HttpCodes[HttpCodes["PermanentRedirect"] = 308] = "PermanentRedirect";
    HttpCodes[HttpCodes["BadRequest"] = 400] = "BadRequest";
    HttpCodes[HttpCodes["Unauthorized"] = 401] = "Unauthorized";
    HttpCodes[HttpCodes["PaymentRequired"] = 402] = "PaymentRequired";
    HttpCodes[HttpCodes["Forbidden"] = 403] = "Forbidden";
    HttpCodes[HttpCodes["NotFound"] = 404] = "NotFound";
    HttpCodes[HttpCodes["MethodNotAllowed"] = 405] = "MethodNotAllowed";
    HttpCodes[HttpCodes["NotAcceptable"] = 406] = "NotAcceptable";
    HttpCodes[HttpCodes["ProxyAuthenticationRequired"] = 407] = "ProxyAuthenticationRequired";
    HttpCodes[HttpCodes["RequestTimeout"] = 408] = "RequestTimeout";
    HttpCodes[HttpCodes["Conflict"] = 409] = "Conflict";
    HttpCodes[HttpCodes["Gone"] = 410] = "Gone";
    HttpCodes[HttpCodes["TooManyRequests"] = 429] = "TooManyRequests";
    HttpCodes[HttpCodes["InternalServerError"] = 500] = "InternalServerError";
    HttpCodes[HttpCodes["NotImplemented"] = 501] = "NotImplemented";
    HttpCodes[HttpCodes["BadGateway"] = 502] = "BadGateway";
    HttpCodes[HttpCodes["ServiceUnavailable"] = 503] = "ServiceUnavailable";
    HttpCodes[HttpCodes["GatewayTimeout"] = 504] = "GatewayTimeout";
})(HttpCodes || (HttpCodes = {}));
var Headers;
(function (Headers) {
    Headers["Accept"] = "accept";
    Headers["ContentType"] = "content-type";
})(Headers || (Headers = {}));
var MediaTypes;
(function (MediaTypes) {
    MediaTypes["ApplicationJson"] = "application/json";
})(MediaTypes || (MediaTypes = {}));
/**
 * Returns the proxy URL, depending upon the supplied url and proxy environment variables.
 * @param serverUrl  The server URL where the request will be sent. For example, https://api.github.com
 */
function lib_getProxyUrl(serverUrl) {
    const proxyUrl = pm.getProxyUrl(new URL(serverUrl));
    return proxyUrl ? proxyUrl.href : '';
}
const HttpRedirectCodes = [
    HttpCodes.MovedPermanently,
    HttpCodes.ResourceMoved,
    HttpCodes.SeeOther,
    HttpCodes.TemporaryRedirect,
    HttpCodes.PermanentRedirect
];
const HttpResponseRetryCodes = [
    HttpCodes.BadGateway,
    HttpCodes.ServiceUnavailable,
    HttpCodes.GatewayTimeout
];
const RetryableHttpVerbs = ['OPTIONS', 'GET', 'DELETE', 'HEAD'];
const ExponentialBackoffCeiling = 10;
const ExponentialBackoffTimeSlice = 5;
class HttpClientError extends Error {
    constructor(message, statusCode) {
        super(message);
        this.name = 'HttpClientError';
        this.statusCode = statusCode;
        Object.setPrototypeOf(this, HttpClientError.prototype);
    }
}
class HttpClientResponse {
    constructor(message) {
        this.message = message;
    }
    readBody() {
        return __awaiter(this, void 0, void 0, function* () {
            return new Promise((resolve) => __awaiter(this, void 0, void 0, function* () {
                let output = Buffer.alloc(0);
                this.message.on('data', (chunk) => {
                    output = Buffer.concat([output, chunk]);
                });
                this.message.on('end', () => {
                    resolve(output.toString());
                });
            }));
        });
    }
    readBodyBuffer() {
        return __awaiter(this, void 0, void 0, function* () {
            return new Promise((resolve) => __awaiter(this, void 0, void 0, function* () {
                const chunks = [];
                this.message.on('data', (chunk) => {
                    chunks.push(chunk);
                });
                this.message.on('end', () => {
                    resolve(Buffer.concat(chunks));
                });
            }));
        });
    }
}
function isHttps(requestUrl) {
    const parsedUrl = new URL(requestUrl);
    return parsedUrl.protocol === 'https:';
}
class HttpClient {
    constructor(userAgent, handlers, requestOptions) {
        this._ignoreSslError = false;
        this._allowRedirects = true;
        this._allowRedirectDowngrade = false;
        this._maxRedirects = 50;
        this._allowRetries = false;
        this._maxRetries = 1;
        this._keepAlive = false;
        this._disposed = false;
        this.userAgent = this._getUserAgentWithOrchestrationId(userAgent);
        this.handlers = handlers || [];
        this.requestOptions = requestOptions;
        if (requestOptions) {
            if (requestOptions.ignoreSslError != null) {
                this._ignoreSslError = requestOptions.ignoreSslError;
            }
            this._socketTimeout = requestOptions.socketTimeout;
            if (requestOptions.allowRedirects != null) {
                this._allowRedirects = requestOptions.allowRedirects;
            }
            if (requestOptions.allowRedirectDowngrade != null) {
                this._allowRedirectDowngrade = requestOptions.allowRedirectDowngrade;
            }
            if (requestOptions.maxRedirects != null) {
                this._maxRedirects = Math.max(requestOptions.maxRedirects, 0);
            }
            if (requestOptions.keepAlive != null) {
                this._keepAlive = requestOptions.keepAlive;
            }
            if (requestOptions.allowRetries != null) {
                this._allowRetries = requestOptions.allowRetries;
            }
            if (requestOptions.maxRetries != null) {
                this._maxRetries = requestOptions.maxRetries;
            }
        }
    }
    options(requestUrl, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request('OPTIONS', requestUrl, null, additionalHeaders || {});
        });
    }
    get(requestUrl, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request('GET', requestUrl, null, additionalHeaders || {});
        });
    }
    del(requestUrl, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request('DELETE', requestUrl, null, additionalHeaders || {});
        });
    }
    post(requestUrl, data, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request('POST', requestUrl, data, additionalHeaders || {});
        });
    }
    patch(requestUrl, data, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request('PATCH', requestUrl, data, additionalHeaders || {});
        });
    }
    put(requestUrl, data, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request('PUT', requestUrl, data, additionalHeaders || {});
        });
    }
    head(requestUrl, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request('HEAD', requestUrl, null, additionalHeaders || {});
        });
    }
    sendStream(verb, requestUrl, stream, additionalHeaders) {
        return __awaiter(this, void 0, void 0, function* () {
            return this.request(verb, requestUrl, stream, additionalHeaders);
        });
    }
    /**
     * Gets a typed object from an endpoint
     * Be aware that not found returns a null.  Other errors (4xx, 5xx) reject the promise
     */
    getJson(requestUrl_1) {
        return __awaiter(this, arguments, void 0, function* (requestUrl, additionalHeaders = {}) {
            additionalHeaders[Headers.Accept] = this._getExistingOrDefaultHeader(additionalHeaders, Headers.Accept, MediaTypes.ApplicationJson);
            const res = yield this.get(requestUrl, additionalHeaders);
            return this._processResponse(res, this.requestOptions);
        });
    }
    postJson(requestUrl_1, obj_1) {
        return __awaiter(this, arguments, void 0, function* (requestUrl, obj, additionalHeaders = {}) {
            const data = JSON.stringify(obj, null, 2);
            additionalHeaders[Headers.Accept] = this._getExistingOrDefaultHeader(additionalHeaders, Headers.Accept, MediaTypes.ApplicationJson);
            additionalHeaders[Headers.ContentType] =
                this._getExistingOrDefaultContentTypeHeader(additionalHeaders, MediaTypes.ApplicationJson);
            const res = yield this.post(requestUrl, data, additionalHeaders);
            return this._processResponse(res, this.requestOptions);
        });
    }
    putJson(requestUrl_1, obj_1) {
        return __awaiter(this, arguments, void 0, function* (requestUrl, obj, additionalHeaders = {}) {
            const data = JSON.stringify(obj, null, 2);
            additionalHeaders[Headers.Accept] = this._getExistingOrDefaultHeader(additionalHeaders, Headers.Accept, MediaTypes.ApplicationJson);
            additionalHeaders[Headers.ContentType] =
                this._getExistingOrDefaultContentTypeHeader(additionalHeaders, MediaTypes.ApplicationJson);
            const res = yield this.put(requestUrl, data, additionalHeaders);
            return this._processResponse(res, this.requestOptions);
        });
    }
    patchJson(requestUrl_1, obj_1) {
        return __awaiter(this, arguments, void 0, function* (requestUrl, obj, additionalHeaders = {}) {
            const data = JSON.stringify(obj, null, 2);
            additionalHeaders[Headers.Accept] = this._getExistingOrDefaultHeader(additionalHeaders, Headers.Accept, MediaTypes.ApplicationJson);
            additionalHeaders[Headers.ContentType] =
                this._getExistingOrDefaultContentTypeHeader(additionalHeaders, MediaTypes.ApplicationJson);
            const res = yield this.patch(requestUrl, data, additionalHeaders);
            return this._processResponse(res, this.requestOptions);
        });
    }
    /**
     * Makes a raw http request.
     * All other methods such as get, post, patch, and request ultimately call this.
     * Prefer get, del, post and patch
     */
    request(verb, requestUrl, data, headers) {
        return __awaiter(this, void 0, void 0, function* () {
            if (this._disposed) {
                throw new Error('Client has already been disposed.');
            }
            const parsedUrl = new URL(requestUrl);
            let info = this._prepareRequest(verb, parsedUrl, headers);
            // Only perform retries on reads since writes may not be idempotent.
            const maxTries = this._allowRetries && RetryableHttpVerbs.includes(verb)
                ? this._maxRetries + 1
                : 1;
            let numTries = 0;
            let response;
            do {
                response = yield this.requestRaw(info, data);
                // Check if it's an authentication challenge
                if (response &&
                    response.message &&
                    response.message.statusCode === HttpCodes.Unauthorized) {
                    let authenticationHandler;
                    for (const handler of this.handlers) {
                        if (handler.canHandleAuthentication(response)) {
                            authenticationHandler = handler;
                            break;
                        }
                    }
                    if (authenticationHandler) {
                        return authenticationHandler.handleAuthentication(this, info, data);
                    }
                    else {
                        // We have received an unauthorized response but have no handlers to handle it.
                        // Let the response return to the caller.
                        return response;
                    }
                }
                let redirectsRemaining = this._maxRedirects;
                while (response.message.statusCode &&
                    HttpRedirectCodes.includes(response.message.statusCode) &&
                    this._allowRedirects &&
                    redirectsRemaining > 0) {
                    const redirectUrl = response.message.headers['location'];
                    if (!redirectUrl) {
                        // if there's no location to redirect to, we won't
                        break;
                    }
                    const parsedRedirectUrl = new URL(redirectUrl);
                    if (parsedUrl.protocol === 'https:' &&
                        parsedUrl.protocol !== parsedRedirectUrl.protocol &&
                        !this._allowRedirectDowngrade) {
                        throw new Error('Redirect from HTTPS to HTTP protocol. This downgrade is not allowed for security reasons. If you want to allow this behavior, set the allowRedirectDowngrade option to true.');
                    }
                    // we need to finish reading the response before reassigning response
                    // which will leak the open socket.
                    yield response.readBody();
                    // strip authorization header if redirected to a different hostname
                    if (parsedRedirectUrl.hostname !== parsedUrl.hostname) {
                        for (const header in headers) {
                            // header names are case insensitive
                            if (header.toLowerCase() === 'authorization') {
                                delete headers[header];
                            }
                        }
                    }
                    // let's make the request with the new redirectUrl
                    info = this._prepareRequest(verb, parsedRedirectUrl, headers);
                    response = yield this.requestRaw(info, data);
                    redirectsRemaining--;
                }
                if (!response.message.statusCode ||
                    !HttpResponseRetryCodes.includes(response.message.statusCode)) {
                    // If not a retry code, return immediately instead of retrying
                    return response;
                }
                numTries += 1;
                if (numTries < maxTries) {
                    yield response.readBody();
                    yield this._performExponentialBackoff(numTries);
                }
            } while (numTries < maxTries);
            return response;
        });
    }
    /**
     * Needs to be called if keepAlive is set to true in request options.
     */
    dispose() {
        if (this._agent) {
            this._agent.destroy();
        }
        this._disposed = true;
    }
    /**
     * Raw request.
     * @param info
     * @param data
     */
    requestRaw(info, data) {
        return __awaiter(this, void 0, void 0, function* () {
            return new Promise((resolve, reject) => {
                function callbackForResult(err, res) {
                    if (err) {
                        reject(err);
                    }
                    else if (!res) {
                        // If `err` is not passed, then `res` must be passed.
                        reject(new Error('Unknown error'));
                    }
                    else {
                        resolve(res);
                    }
                }
                this.requestRawWithCallback(info, data, callbackForResult);
            });
        });
    }
    /**
     * Raw request with callback.
     * @param info
     * @param data
     * @param onResult
     */
    requestRawWithCallback(info, data, onResult) {
        if (typeof data === 'string') {
            if (!info.options.headers) {
                info.options.headers = {};
            }
            info.options.headers['Content-Length'] = Buffer.byteLength(data, 'utf8');
        }
        let callbackCalled = false;
        function handleResult(err, res) {
            if (!callbackCalled) {
                callbackCalled = true;
                onResult(err, res);
            }
        }
        const req = info.httpModule.request(info.options, (msg) => {
            const res = new HttpClientResponse(msg);
            handleResult(undefined, res);
        });
        let socket;
        req.on('socket', sock => {
            socket = sock;
        });
        // If we ever get disconnected, we want the socket to timeout eventually
        req.setTimeout(this._socketTimeout || 3 * 60000, () => {
            if (socket) {
                socket.end();
            }
            handleResult(new Error(`Request timeout: ${info.options.path}`));
        });
        req.on('error', function (err) {
            // err has statusCode property
            // res should have headers
            handleResult(err);
        });
        if (data && typeof data === 'string') {
            req.write(data, 'utf8');
        }
        if (data && typeof data !== 'string') {
            data.on('close', function () {
                req.end();
            });
            data.pipe(req);
        }
        else {
            req.end();
        }
    }
    /**
     * Gets an http agent. This function is useful when you need an http agent that handles
     * routing through a proxy server - depending upon the url and proxy environment variables.
     * @param serverUrl  The server URL where the request will be sent. For example, https://api.github.com
     */
    getAgent(serverUrl) {
        const parsedUrl = new URL(serverUrl);
        return this._getAgent(parsedUrl);
    }
    getAgentDispatcher(serverUrl) {
        const parsedUrl = new URL(serverUrl);
        const proxyUrl = getProxyUrl(parsedUrl);
        const useProxy = proxyUrl && proxyUrl.hostname;
        if (!useProxy) {
            return;
        }
        return this._getProxyAgentDispatcher(parsedUrl, proxyUrl);
    }
    _prepareRequest(method, requestUrl, headers) {
        const info = {};
        info.parsedUrl = requestUrl;
        const usingSsl = info.parsedUrl.protocol === 'https:';
        info.httpModule = usingSsl ? external_https_namespaceObject : external_http_namespaceObject;
        const defaultPort = usingSsl ? 443 : 80;
        info.options = {};
        info.options.host = info.parsedUrl.hostname;
        info.options.port = info.parsedUrl.port
            ? parseInt(info.parsedUrl.port)
            : defaultPort;
        info.options.path =
            (info.parsedUrl.pathname || '') + (info.parsedUrl.search || '');
        info.options.method = method;
        info.options.headers = this._mergeHeaders(headers);
        if (this.userAgent != null) {
            info.options.headers['user-agent'] = this.userAgent;
        }
        info.options.agent = this._getAgent(info.parsedUrl);
        // gives handlers an opportunity to participate
        if (this.handlers) {
            for (const handler of this.handlers) {
                handler.prepareRequest(info.options);
            }
        }
        return info;
    }
    _mergeHeaders(headers) {
        if (this.requestOptions && this.requestOptions.headers) {
            return Object.assign({}, lowercaseKeys(this.requestOptions.headers), lowercaseKeys(headers || {}));
        }
        return lowercaseKeys(headers || {});
    }
    /**
     * Gets an existing header value or returns a default.
     * Handles converting number header values to strings since HTTP headers must be strings.
     * Note: This returns string | string[] since some headers can have multiple values.
     * For headers that must always be a single string (like Content-Type), use the
     * specialized _getExistingOrDefaultContentTypeHeader method instead.
     */
    _getExistingOrDefaultHeader(additionalHeaders, header, _default) {
        let clientHeader;
        if (this.requestOptions && this.requestOptions.headers) {
            const headerValue = lowercaseKeys(this.requestOptions.headers)[header];
            if (headerValue) {
                clientHeader =
                    typeof headerValue === 'number' ? headerValue.toString() : headerValue;
            }
        }
        const additionalValue = additionalHeaders[header];
        if (additionalValue !== undefined) {
            return typeof additionalValue === 'number'
                ? additionalValue.toString()
                : additionalValue;
        }
        if (clientHeader !== undefined) {
            return clientHeader;
        }
        return _default;
    }
    /**
     * Specialized version of _getExistingOrDefaultHeader for Content-Type header.
     * Always returns a single string (not an array) since Content-Type should be a single value.
     * Converts arrays to comma-separated strings and numbers to strings to ensure type safety.
     * This was split from _getExistingOrDefaultHeader to provide stricter typing for callers
     * that assign the result to places expecting a string (e.g., additionalHeaders[Headers.ContentType]).
     */
    _getExistingOrDefaultContentTypeHeader(additionalHeaders, _default) {
        let clientHeader;
        if (this.requestOptions && this.requestOptions.headers) {
            const headerValue = lowercaseKeys(this.requestOptions.headers)[Headers.ContentType];
            if (headerValue) {
                if (typeof headerValue === 'number') {
                    clientHeader = String(headerValue);
                }
                else if (Array.isArray(headerValue)) {
                    clientHeader = headerValue.join(', ');
                }
                else {
                    clientHeader = headerValue;
                }
            }
        }
        const additionalValue = additionalHeaders[Headers.ContentType];
        // Return the first non-undefined value, converting numbers or arrays to strings if necessary
        if (additionalValue !== undefined) {
            if (typeof additionalValue === 'number') {
                return String(additionalValue);
            }
            else if (Array.isArray(additionalValue)) {
                return additionalValue.join(', ');
            }
            else {
                return additionalValue;
            }
        }
        if (clientHeader !== undefined) {
            return clientHeader;
        }
        return _default;
    }
    _getAgent(parsedUrl) {
        let agent;
        const proxyUrl = getProxyUrl(parsedUrl);
        const useProxy = proxyUrl && proxyUrl.hostname;
        if (this._keepAlive && useProxy) {
            agent = this._proxyAgent;
        }
        if (!useProxy) {
            agent = this._agent;
        }
        // if agent is already assigned use that agent.
        if (agent) {
            return agent;
        }
        const usingSsl = parsedUrl.protocol === 'https:';
        let maxSockets = 100;
        if (this.requestOptions) {
            maxSockets = this.requestOptions.maxSockets || external_http_.globalAgent.maxSockets;
        }
        // This is `useProxy` again, but we need to check `proxyURl` directly for TypeScripts's flow analysis.
        if (proxyUrl && proxyUrl.hostname) {
            const agentOptions = {
                maxSockets,
                keepAlive: this._keepAlive,
                proxy: Object.assign(Object.assign({}, ((proxyUrl.username || proxyUrl.password) && {
                    proxyAuth: `${proxyUrl.username}:${proxyUrl.password}`
                })), { host: proxyUrl.hostname, port: proxyUrl.port })
            };
            let tunnelAgent;
            const overHttps = proxyUrl.protocol === 'https:';
            if (usingSsl) {
                tunnelAgent = overHttps ? httpsOverHttps : httpsOverHttp;
            }
            else {
                tunnelAgent = overHttps ? httpOverHttps : httpOverHttp;
            }
            agent = tunnelAgent(agentOptions);
            this._proxyAgent = agent;
        }
        // if tunneling agent isn't assigned create a new agent
        if (!agent) {
            const options = { keepAlive: this._keepAlive, maxSockets };
            agent = usingSsl ? new external_https_.Agent(options) : new external_http_.Agent(options);
            this._agent = agent;
        }
        if (usingSsl && this._ignoreSslError) {
            // we don't want to set NODE_TLS_REJECT_UNAUTHORIZED=0 since that will affect request for entire process
            // http.RequestOptions doesn't expose a way to modify RequestOptions.agent.options
            // we have to cast it to any and change it directly
            agent.options = Object.assign(agent.options || {}, {
                rejectUnauthorized: false
            });
        }
        return agent;
    }
    _getProxyAgentDispatcher(parsedUrl, proxyUrl) {
        let proxyAgent;
        if (this._keepAlive) {
            proxyAgent = this._proxyAgentDispatcher;
        }
        // if agent is already assigned use that agent.
        if (proxyAgent) {
            return proxyAgent;
        }
        const usingSsl = parsedUrl.protocol === 'https:';
        proxyAgent = new ProxyAgent(Object.assign({ uri: proxyUrl.href, pipelining: !this._keepAlive ? 0 : 1 }, ((proxyUrl.username || proxyUrl.password) && {
            token: `Basic ${Buffer.from(`${proxyUrl.username}:${proxyUrl.password}`).toString('base64')}`
        })));
        this._proxyAgentDispatcher = proxyAgent;
        if (usingSsl && this._ignoreSslError) {
            // we don't want to set NODE_TLS_REJECT_UNAUTHORIZED=0 since that will affect request for entire process
            // http.RequestOptions doesn't expose a way to modify RequestOptions.agent.options
            // we have to cast it to any and change it directly
            proxyAgent.options = Object.assign(proxyAgent.options.requestTls || {}, {
                rejectUnauthorized: false
            });
        }
        return proxyAgent;
    }
    _getUserAgentWithOrchestrationId(userAgent) {
        const baseUserAgent = userAgent || 'actions/http-client';
        const orchId = process.env['ACTIONS_ORCHESTRATION_ID'];
        if (orchId) {
            // Sanitize the orchestration ID to ensure it contains only valid characters
            // Valid characters: 0-9, a-z, _, -, .
            const sanitizedId = orchId.replace(/[^a-z0-9_.-]/gi, '_');
            return `${baseUserAgent} actions_orchestration_id/${sanitizedId}`;
        }
        return baseUserAgent;
    }
    _performExponentialBackoff(retryNumber) {
        return __awaiter(this, void 0, void 0, function* () {
            retryNumber = Math.min(ExponentialBackoffCeiling, retryNumber);
            const ms = ExponentialBackoffTimeSlice * Math.pow(2, retryNumber);
            return new Promise(resolve => setTimeout(() => resolve(), ms));
        });
    }
    _processResponse(res, options) {
        return __awaiter(this, void 0, void 0, function* () {
            return new Promise((resolve, reject) => __awaiter(this, void 0, void 0, function* () {
                const statusCode = res.message.statusCode || 0;
                const response = {
                    statusCode,
                    result: null,
                    headers: {}
                };
                // not found leads to null obj returned
                if (statusCode === HttpCodes.NotFound) {
                    resolve(response);
                }
                // get the result from the body
                function dateTimeDeserializer(key, value) {
                    if (typeof value === 'string') {
                        const a = new Date(value);
                        if (!isNaN(a.valueOf())) {
                            return a;
                        }
                    }
                    return value;
                }
                let obj;
                let contents;
                try {
                    contents = yield res.readBody();
                    if (contents && contents.length > 0) {
                        if (options && options.deserializeDates) {
                            obj = JSON.parse(contents, dateTimeDeserializer);
                        }
                        else {
                            obj = JSON.parse(contents);
                        }
                        response.result = obj;
                    }
                    response.headers = res.message.headers;
                }
                catch (err) {
                    // Invalid resource (contents not json);  leaving result obj null
                }
                // note that 3xx redirects are handled by the http layer.
                if (statusCode > 299) {
                    let msg;
                    // if exception/error in body, attempt to get better error
                    if (obj && obj.message) {
                        msg = obj.message;
                    }
                    else if (contents && contents.length > 0) {
                        // it may be the case that the exception is in the body message as string
                        msg = contents;
                    }
                    else {
                        msg = `Failed request: (${statusCode})`;
                    }
                    const err = new HttpClientError(msg, statusCode);
                    err.result = response.result;
                    reject(err);
                }
                else {
                    resolve(response);
                }
            }));
        });
    }
}
const lowercaseKeys = (obj) => Object.keys(obj).reduce((c, k) => ((c[k.toLowerCase()] = obj[k]), c), {});
//# sourceMappingURL=index.js.map

/***/ })

/******/ 	});
/************************************************************************/
/******/ 	// The module cache
/******/ 	var __webpack_module_cache__ = {};
/******/ 	
/******/ 	// The require function
/******/ 	function __nccwpck_require__(moduleId) {
/******/ 		// Check if module is in cache
/******/ 		var cachedModule = __webpack_module_cache__[moduleId];
/******/ 		if (cachedModule !== undefined) {
/******/ 			return cachedModule.exports;
/******/ 		}
/******/ 		// Create a new module (and put it into the cache)
/******/ 		var module = __webpack_module_cache__[moduleId] = {
/******/ 			// no module.id needed
/******/ 			// no module.loaded needed
/******/ 			exports: {}
/******/ 		};
/******/ 	
/******/ 		// Execute the module function
/******/ 		var threw = true;
/******/ 		try {
/******/ 			__webpack_modules__[moduleId](module, module.exports, __nccwpck_require__);
/******/ 			threw = false;
/******/ 		} finally {
/******/ 			if(threw) delete __webpack_module_cache__[moduleId];
/******/ 		}
/******/ 	
/******/ 		// Return the exports of the module
/******/ 		return module.exports;
/******/ 	}
/******/ 	
/******/ 	// expose the modules object (__webpack_modules__)
/******/ 	__nccwpck_require__.m = __webpack_modules__;
/******/ 	
/************************************************************************/
/******/ 	/* webpack/runtime/asset-relocator-loader */
/******/ 	if (typeof __nccwpck_require__ !== 'undefined') __nccwpck_require__.ab = __dirname + "/";
/******/ 	
/******/ 	/* webpack/runtime/async module */
/******/ 	(() => {
/******/ 		var webpackQueues = typeof Symbol === "function" ? Symbol("webpack queues") : "__webpack_queues__";
/******/ 		var webpackExports = typeof Symbol === "function" ? Symbol("webpack exports") : "__webpack_exports__";
/******/ 		var webpackError = typeof Symbol === "function" ? Symbol("webpack error") : "__webpack_error__";
/******/ 		var resolveQueue = (queue) => {
/******/ 			if(queue && queue.d < 1) {
/******/ 				queue.d = 1;
/******/ 				queue.forEach((fn) => (fn.r--));
/******/ 				queue.forEach((fn) => (fn.r-- ? fn.r++ : fn()));
/******/ 			}
/******/ 		}
/******/ 		var wrapDeps = (deps) => (deps.map((dep) => {
/******/ 			if(dep !== null && typeof dep === "object") {
/******/ 				if(dep[webpackQueues]) return dep;
/******/ 				if(dep.then) {
/******/ 					var queue = [];
/******/ 					queue.d = 0;
/******/ 					dep.then((r) => {
/******/ 						obj[webpackExports] = r;
/******/ 						resolveQueue(queue);
/******/ 					}, (e) => {
/******/ 						obj[webpackError] = e;
/******/ 						resolveQueue(queue);
/******/ 					});
/******/ 					var obj = {};
/******/ 					obj[webpackQueues] = (fn) => (fn(queue));
/******/ 					return obj;
/******/ 				}
/******/ 			}
/******/ 			var ret = {};
/******/ 			ret[webpackQueues] = x => {};
/******/ 			ret[webpackExports] = dep;
/******/ 			return ret;
/******/ 		}));
/******/ 		__nccwpck_require__.a = (module, body, hasAwait) => {
/******/ 			var queue;
/******/ 			hasAwait && ((queue = []).d = -1);
/******/ 			var depQueues = new Set();
/******/ 			var exports = module.exports;
/******/ 			var currentDeps;
/******/ 			var outerResolve;
/******/ 			var reject;
/******/ 			var promise = new Promise((resolve, rej) => {
/******/ 				reject = rej;
/******/ 				outerResolve = resolve;
/******/ 			});
/******/ 			promise[webpackExports] = exports;
/******/ 			promise[webpackQueues] = (fn) => (queue && fn(queue), depQueues.forEach(fn), promise["catch"](x => {}));
/******/ 			module.exports = promise;
/******/ 			body((deps) => {
/******/ 				currentDeps = wrapDeps(deps);
/******/ 				var fn;
/******/ 				var getResult = () => (currentDeps.map((d) => {
/******/ 					if(d[webpackError]) throw d[webpackError];
/******/ 					return d[webpackExports];
/******/ 				}))
/******/ 				var promise = new Promise((resolve) => {
/******/ 					fn = () => (resolve(getResult));
/******/ 					fn.r = 0;
/******/ 					var fnQueue = (q) => (q !== queue && !depQueues.has(q) && (depQueues.add(q), q && !q.d && (fn.r++, q.push(fn))));
/******/ 					currentDeps.map((dep) => (dep[webpackQueues](fnQueue)));
/******/ 				});
/******/ 				return fn.r ? promise : getResult();
/******/ 			}, (err) => ((err ? reject(promise[webpackError] = err) : outerResolve(exports)), resolveQueue(queue)));
/******/ 			queue && queue.d < 0 && (queue.d = 0);
/******/ 		};
/******/ 	})();
/******/ 	
/******/ 	/* webpack/runtime/compat get default export */
/******/ 	(() => {
/******/ 		// getDefaultExport function for compatibility with non-harmony modules
/******/ 		__nccwpck_require__.n = (module) => {
/******/ 			var getter = module && module.__esModule ?
/******/ 				() => (module['default']) :
/******/ 				() => (module);
/******/ 			__nccwpck_require__.d(getter, { a: getter });
/******/ 			return getter;
/******/ 		};
/******/ 	})();
/******/ 	
/******/ 	/* webpack/runtime/create fake namespace object */
/******/ 	(() => {
/******/ 		var getProto = Object.getPrototypeOf ? (obj) => (Object.getPrototypeOf(obj)) : (obj) => (obj.__proto__);
/******/ 		var leafPrototypes;
/******/ 		// create a fake namespace object
/******/ 		// mode & 1: value is a module id, require it
/******/ 		// mode & 2: merge all properties of value into the ns
/******/ 		// mode & 4: return value when already ns object
/******/ 		// mode & 16: return value when it's Promise-like
/******/ 		// mode & 8|1: behave like require
/******/ 		__nccwpck_require__.t = function(value, mode) {
/******/ 			if(mode & 1) value = this(value);
/******/ 			if(mode & 8) return value;
/******/ 			if(typeof value === 'object' && value) {
/******/ 				if((mode & 4) && value.__esModule) return value;
/******/ 				if((mode & 16) && typeof value.then === 'function') return value;
/******/ 			}
/******/ 			var ns = Object.create(null);
/******/ 			__nccwpck_require__.r(ns);
/******/ 			var def = {};
/******/ 			leafPrototypes = leafPrototypes || [null, getProto({}), getProto([]), getProto(getProto)];
/******/ 			for(var current = mode & 2 && value; typeof current == 'object' && !~leafPrototypes.indexOf(current); current = getProto(current)) {
/******/ 				Object.getOwnPropertyNames(current).forEach((key) => (def[key] = () => (value[key])));
/******/ 			}
/******/ 			def['default'] = () => (value);
/******/ 			__nccwpck_require__.d(ns, def);
/******/ 			return ns;
/******/ 		};
/******/ 	})();
/******/ 	
/******/ 	/* webpack/runtime/define property getters */
/******/ 	(() => {
/******/ 		// define getter functions for harmony exports
/******/ 		__nccwpck_require__.d = (exports, definition) => {
/******/ 			for(var key in definition) {
/******/ 				if(__nccwpck_require__.o(definition, key) && !__nccwpck_require__.o(exports, key)) {
/******/ 					Object.defineProperty(exports, key, { enumerable: true, get: definition[key] });
/******/ 				}
/******/ 			}
/******/ 		};
/******/ 	})();
/******/ 	
/******/ 	/* webpack/runtime/ensure chunk */
/******/ 	(() => {
/******/ 		__nccwpck_require__.f = {};
/******/ 		// This file contains only the entry chunk.
/******/ 		// The chunk loading function for additional chunks
/******/ 		__nccwpck_require__.e = (chunkId) => {
/******/ 			return Promise.all(Object.keys(__nccwpck_require__.f).reduce((promises, key) => {
/******/ 				__nccwpck_require__.f[key](chunkId, promises);
/******/ 				return promises;
/******/ 			}, []));
/******/ 		};
/******/ 	})();
/******/ 	
/******/ 	/* webpack/runtime/get javascript chunk filename */
/******/ 	(() => {
/******/ 		// This function allow to reference async chunks
/******/ 		__nccwpck_require__.u = (chunkId) => {
/******/ 			// return url for filenames based on template
/******/ 			return "" + chunkId + ".index.js";
/******/ 		};
/******/ 	})();
/******/ 	
/******/ 	/* webpack/runtime/hasOwnProperty shorthand */
/******/ 	(() => {
/******/ 		__nccwpck_require__.o = (obj, prop) => (Object.prototype.hasOwnProperty.call(obj, prop))
/******/ 	})();
/******/ 	
/******/ 	/* webpack/runtime/make namespace object */
/******/ 	(() => {
/******/ 		// define __esModule on exports
/******/ 		__nccwpck_require__.r = (exports) => {
/******/ 			if(typeof Symbol !== 'undefined' && Symbol.toStringTag) {
/******/ 				Object.defineProperty(exports, Symbol.toStringTag, { value: 'Module' });
/******/ 			}
/******/ 			Object.defineProperty(exports, '__esModule', { value: true });
/******/ 		};
/******/ 	})();
/******/ 	
/******/ 	/* webpack/runtime/require chunk loading */
/******/ 	(() => {
/******/ 		// no baseURI
/******/ 		
/******/ 		// object to store loaded chunks
/******/ 		// "1" means "loaded", otherwise not loaded yet
/******/ 		var installedChunks = {
/******/ 			792: 1
/******/ 		};
/******/ 		
/******/ 		// no on chunks loaded
/******/ 		
/******/ 		var installChunk = (chunk) => {
/******/ 			var moreModules = chunk.modules, chunkIds = chunk.ids, runtime = chunk.runtime;
/******/ 			for(var moduleId in moreModules) {
/******/ 				if(__nccwpck_require__.o(moreModules, moduleId)) {
/******/ 					__nccwpck_require__.m[moduleId] = moreModules[moduleId];
/******/ 				}
/******/ 			}
/******/ 			if(runtime) runtime(__nccwpck_require__);
/******/ 			for(var i = 0; i < chunkIds.length; i++)
/******/ 				installedChunks[chunkIds[i]] = 1;
/******/ 		
/******/ 		};
/******/ 		
/******/ 		// require() chunk loading for javascript
/******/ 		__nccwpck_require__.f.require = (chunkId, promises) => {
/******/ 			// "1" is the signal for "already loaded"
/******/ 			if(!installedChunks[chunkId]) {
/******/ 				if(true) { // all chunks have JS
/******/ 					installChunk(require("./" + __nccwpck_require__.u(chunkId)));
/******/ 				} else installedChunks[chunkId] = 1;
/******/ 			}
/******/ 		};
/******/ 		
/******/ 		// no external install chunk
/******/ 		
/******/ 		// no HMR
/******/ 		
/******/ 		// no HMR manifest
/******/ 	})();
/******/ 	
/************************************************************************/
/******/ 	
/******/ 	// startup
/******/ 	// Load entry module and return exports
/******/ 	// This entry module used 'module' so it can't be inlined
/******/ 	var __webpack_exports__ = __nccwpck_require__(456);
/******/ 	module.exports = __webpack_exports__;
/******/ 	
/******/ })()
;