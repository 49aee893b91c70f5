/// A session's flow as the store keeps it: one value, versioned, so a new
/// flow or a new field is a new case or a new line, not a column and a
/// migration. Lines of `key=value`; no value can hold a line break (each was
/// checked as a URI, a host name, a desktop id or printable ASCII when the
/// session began). Unknown keys are ignored, so a newer daemon's value still reads.
extension SessionFlow {
    /// The value's format version (a line `v=1` first).
    static let storedVersion = "1"

    public var stored: String {
        switch self {
        case .code(let c): return CodeFlowWriter.write(c)
        case .device(let d): return d.stored
        }
    }

    /// Reads a stored flow of `kind`; nil when it is unreadable. `callback`
    /// parses a callback URI (the store shares one parse per distinct text).
    public init?(kind: String, stored: String, callback: (String, String) -> CallbackURI?) {
        var text = stored
        var reuse = StoredFlowReuse()
        guard let flow = text.withUTF8({ SessionFlow(kind: kind, bytes: $0, reuse: &reuse, callback: callback) }) else {
            return nil
        }
        self = flow
    }

    /// The same from the bytes as the store holds them, for a restore: the
    /// values rows share (callbacks, origins, issuers) are taken from the row
    /// before when their bytes are the same, neither allocated nor parsed again.
    public init?(
        kind: String, bytes: UnsafeBufferPointer<UInt8>, reuse: inout StoredFlowReuse,
        callback: (String, String) -> CallbackURI?
    ) {
        if kind == "device" {
            guard let flow = DeviceFlow(stored: String(decoding: bytes, as: UTF8.self)) else { return nil }
            self = .device(flow)
            return
        }
        guard kind == "code", let flow = CodeFlowReader.read(bytes, reuse: &reuse, callback: callback) else {
            return nil
        }
        self = .code(flow)
    }
}

/// What one stored row's values were, for the next row to share.
public struct StoredFlowReuse {
    var texts = [String?](repeating: nil, count: CodeFlowReader.Key.allCases.count)
    var redirect: (text: String, uri: CallbackURI)?
    var appCallback: (text: String, uri: CallbackURI)?
    public init() {}

    /// `bytes` as a string: the previous row's, when they are the same.
    mutating func text(_ key: CodeFlowReader.Key, _ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if var previous = texts[key.rawValue], previous.withUTF8({ ByteKey.equal($0, bytes) }) { return previous }
        let fresh = String(decoding: bytes, as: UTF8.self)
        texts[key.rawValue] = fresh
        return fresh
    }
}

/// A code flow's lines, written in two passes over one list of fields: the
/// length, then the bytes straight into the string's storage. Appending to a
/// byte array and making a string of it was ~2.3 k instructions a write
/// (bench: per Route); closures over a counter cost as much again in
/// exclusivity checks, so the passes share a plain value, `Sink`.
enum CodeFlowWriter {
    static func write(_ c: CodeFlow) -> String {
        let hosts = c.resumeHosts.isEmpty ? nil : c.resumeHosts.joined(separator: " ")
        var count = Sink(nil)
        fields(c, hosts, &count)
        return String(unsafeUninitializedCapacity: count.at) { out in
            var sink = Sink(out)
            fields(c, hosts, &sink)
            return sink.at
        }
    }

    /// Counts bytes (no buffer) or writes them (a buffer of the counted size).
    struct Sink {
        let out: UnsafeMutableBufferPointer<UInt8>?
        var at = 0
        init(_ out: UnsafeMutableBufferPointer<UInt8>?) { self.out = out }

        mutating func add(_ key: StaticString, _ value: String?) {
            guard var value else { return }
            if at > 0 { put(0x0A) }
            put(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
            put(0x3D)
            value.withUTF8 { put($0) }
        }

        private mutating func put(_ byte: UInt8) {
            out?[at] = byte
            at += 1
        }

        private mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
            if let to = out?.baseAddress, let from = bytes.baseAddress {
                (to + at).initialize(from: from, count: bytes.count)
            }
            at += bytes.count
        }
    }

    /// Every field present, in the order the reader expects them first (`CodeFlowReader.Key`).
    private static func fields(_ c: CodeFlow, _ hosts: String?, _ sink: inout Sink) {
        sink.add("v", SessionFlow.storedVersion)
        sink.add("source", c.source.rawValue)
        sink.add("state", c.state)
        sink.add("redirect", c.redirect.string)
        sink.add("origin", c.authorizationOrigin)
        sink.add("resume", c.resumeMode.rawValue)
        sink.add("nonce", c.nonce)
        sink.add("verifier", c.codeVerifier)
        sink.add("app_callback", c.appCallback?.string)
        sink.add("resume_hosts", hosts)
        sink.add("resume_path_prefix", c.resumePathPrefix)
        sink.add("browser", c.browser)
        sink.add("issuer", c.issuer)
        if c.requireIssuer { sink.add("require_iss", "1") }
        if c.resumeOpened { sink.add("resume_opened", "1") }
        if let e = c.exchange {
            sink.add("exchange_client_id", e.clientID)
            sink.add("exchange_token_endpoint", e.tokenEndpoint)
            sink.add("exchange_jwks_uri", e.jwksURI)
            if e.expectsIDToken { sink.add("exchange_openid", "1") }
            sink.add("exchange_account", e.account)
            if e.accountInMemory { sink.add("exchange_account_memory", "1") }
            sink.add("exchange_dpop", e.dpop?.stored)
        }
    }
}

/// One pass over the stored bytes: no split, no dictionary, no string made
/// for a key. A restore of 10,000 sessions reads 10,000 of these; comparing
/// each key as a `String` against every case cost ~24 k instructions a row.
enum CodeFlowReader {
    /// The keys, in the order `stored` writes them: the reader tries the next one first.
    enum Key: Int, CaseIterable {
        case v, source, state, redirect, origin, resume, nonce, verifier, appCallback, resumeHosts, resumePathPrefix
        case browser, issuer, requireIssuer, resumeOpened, exchangeClientID, exchangeTokenEndpoint, exchangeJWKSURI,
            exchangeOpenID
        case exchangeAccount, exchangeAccountMemory, exchangeDPoP

        var name: StaticString {
            switch self {
            case .v: "v"
            case .source: "source"
            case .state: "state"
            case .redirect: "redirect"
            case .origin: "origin"
            case .resume: "resume"
            case .nonce: "nonce"
            case .verifier: "verifier"
            case .appCallback: "app_callback"
            case .resumeHosts: "resume_hosts"
            case .resumePathPrefix: "resume_path_prefix"
            case .browser: "browser"
            case .issuer: "issuer"
            case .requireIssuer: "require_iss"
            case .resumeOpened: "resume_opened"
            case .exchangeClientID: "exchange_client_id"
            case .exchangeTokenEndpoint: "exchange_token_endpoint"
            case .exchangeJWKSURI: "exchange_jwks_uri"
            case .exchangeOpenID: "exchange_openid"
            case .exchangeAccount: "exchange_account"
            case .exchangeAccountMemory: "exchange_account_memory"
            case .exchangeDPoP: "exchange_dpop"
            }
        }

        /// The key these bytes spell, trying `from` first; nil for a key this daemon does not know.
        static func named(_ bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Key? {
            let count = allCases.count
            for step in 0..<count {
                let key = Key(rawValue: (from + step) % count)!
                let name = key.name
                if name.utf8CodeUnitCount == bytes.count,
                    ByteKey.equal(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount), bytes)
                {
                    return key
                }
            }
            return nil
        }
    }

    static func read(
        _ bytes: UnsafeBufferPointer<UInt8>, reuse: inout StoredFlowReuse, callback: (String, String) -> CallbackURI?
    ) -> CodeFlow? {
        var version = false
        var source: CodeFlow.Source?
        var state: String?
        var redirect: CallbackURI?
        var origin: String?
        var resume: ResumeMode?
        var nonce: String?
        var verifier: String?
        var appCallback: CallbackURI?
        var hosts: [String] = []
        var prefix: String?
        var browser: String?
        var issuer: String?
        var requireIssuer = false
        var resumeOpened = false
        var client: String?
        var tokenEndpoint: String?
        var jwks: String?
        var openid = false
        var account: String?
        var accountMemory = false
        var dpop: DPoPBinding?
        // A callback the row before had is not parsed again.
        func sharedCallback(_ text: String, _ cache: inout (text: String, uri: CallbackURI)?, _ role: String)
            -> CallbackURI?
        {
            if let c = cache, c.text == text { return c.uri }
            let uri = callback(text, role)
            cache = uri.map { (text, $0) }
            return uri
        }
        var next = 0
        var lineStart = 0
        while lineStart < bytes.count {
            // The line's end, a word at a time; then the key up to `=` (a line
            // with no `=` is damage).
            let lineEnd = ByteScan.index(of: 0x0A, in: bytes, from: lineStart)
            var eq = lineStart
            while eq < lineEnd && bytes[eq] != 0x3D { eq += 1 }
            guard eq < lineEnd else { return nil }
            let keyBytes = UnsafeBufferPointer(rebasing: bytes[lineStart..<eq])
            let valueBytes = UnsafeBufferPointer(rebasing: bytes[(eq + 1)..<lineEnd])
            lineStart = lineEnd + 1
            guard let key = Key.named(keyBytes, from: next) else { continue }
            next = key.rawValue + 1
            // Values unique to the row are made afresh; the others may be the row before's.
            func fresh() -> String { String(decoding: valueBytes, as: UTF8.self) }
            func shared() -> String { reuse.text(key, valueBytes) }
            let isOne = valueBytes.count == 1 && valueBytes[0] == 0x31
            switch key {
            case .v: version = fresh() == SessionFlow.storedVersion
            case .source: source = CodeFlow.Source(rawValue: fresh())
            case .state: state = fresh()
            case .redirect:
                guard let parsed = sharedCallback(shared(), &reuse.redirect, "redirect_uri") else { return nil }
                redirect = parsed
            case .origin: origin = shared()
            case .resume: resume = ResumeMode(rawValue: fresh())
            case .nonce: nonce = fresh()
            case .verifier: verifier = fresh()
            case .appCallback:
                guard let parsed = sharedCallback(shared(), &reuse.appCallback, "app_callback_uri") else { return nil }
                appCallback = parsed
            case .resumeHosts: hosts = shared().split(separator: " ").map(String.init)
            case .resumePathPrefix: prefix = shared()
            case .browser: browser = shared()
            case .issuer: issuer = shared()
            case .requireIssuer: requireIssuer = isOne
            case .resumeOpened: resumeOpened = isOne
            case .exchangeClientID: client = shared()
            case .exchangeTokenEndpoint: tokenEndpoint = shared()
            case .exchangeJWKSURI: jwks = shared()
            case .exchangeOpenID: openid = isOne
            case .exchangeAccount: account = shared()
            case .exchangeAccountMemory: accountMemory = isOne
            case .exchangeDPoP:
                // A key that does not read back ends the row: its login could only fail at the token endpoint.
                guard let binding = DPoPBinding(stored: fresh()) else { return nil }
                dpop = binding
            }
        }
        guard version, let source, let state, let redirect, let origin, let resume else { return nil }
        var exchange: TokenExchange?
        if let client, let tokenEndpoint, let jwks {
            exchange = TokenExchange(
                clientID: client, tokenEndpoint: tokenEndpoint, jwksURI: jwks, expectsIDToken: openid, account: account,
                accountInMemory: accountMemory, dpop: dpop)
        }
        return CodeFlow(
            source: source, state: state, nonce: nonce, codeVerifier: verifier, redirect: redirect,
            appCallback: appCallback,
            authorizationOrigin: origin, resumeHosts: hosts, resumePathPrefix: prefix, resumeMode: resume,
            browser: browser,
            issuer: issuer, requireIssuer: requireIssuer, exchange: exchange, resumeOpened: resumeOpened)
    }
}
