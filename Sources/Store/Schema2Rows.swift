import LinkRouterCore

/// Schema 2's rows (a column a field), read once to move them to schema 3:
/// the old table is renamed, the new one made, each row decoded with the
/// old layout and written in the new one. A row that no longer reads (the
/// old loader refused it too) is dropped and named, for the daemon's log.
enum Schema2Rows {
    static let columns = """
        id, mode, owner, claim_digest, state, nonce, code_verifier, redirect_uri, app_callback_uri, authorization_origin,
        resume_hosts, resume_path_prefix, resume_mode, browser, issuer, require_iss, status, result_code, result_callback_uri,
        result_iss, failure_code, failure_error, failure_description, failure_message, resume_opened, delivered, created_at,
        expires_at, finished_at, exchange
        """

    static func migrate(_ db: SQLiteDatabase) throws(StoreError) -> [String] {
        try db.execute("ALTER TABLE sessions RENAME TO sessions_schema2")
        try db.execute(Schema.sessionsTable)
        let read = try db.prepare("SELECT \(columns) FROM sessions_schema2")
        let insert = try db.prepare(SessionStore.insertSQL)
        var dropped: [String] = []
        while try read.step() {
            if let s = decode(read) {
                try insert.run(SessionStore.row(s))
            } else {
                dropped.append(
                    "session \(read.text(0) ?? "?") of schema 2 does not read; dropped in the move to schema 3")
            }
        }
        try db.execute("DROP TABLE sessions_schema2")
        return dropped
    }

    static func decode(_ s: SQLiteStatement) -> Session? {
        guard let id = s.text(0).flatMap({ SessionID($0) }), let source = s.value(1, as: CodeLogin.Source.self),
            let state = s.text(4),
            let redirect = s.text(7).flatMap({ try? CallbackURI.parse($0, role: "redirect_uri") }),
            let origin = s.text(9), let resumeMode = s.value(12, as: ResumeMode.self),
            let status = s.value(16, as: SessionStatus.self)
        else { return nil }
        var appCallback: CallbackURI?
        if let a = s.text(8) {
            guard let parsed = try? CallbackURI.parse(a, role: "app_callback_uri") else { return nil }
            appCallback = parsed
        }
        let verifier = s.text(6)
        // The column is named `delivered`; it records that the result was released.
        let released = s.int64(25) != 0
        var result: AuthorizationResult?
        if status == .completed || status == .exchanging {
            result = AuthorizationResult(
                code: s.text(17) ?? "", state: state, redirectURI: redirect.string, callbackURI: s.text(18) ?? "",
                issuer: s.text(19), codeVerifier: released ? nil : verifier, nonce: s.text(5))
        }
        var failure: SessionFailure?
        if let code = s.text(20).flatMap(RouterError.Code.init(rawValue:)) {
            failure = SessionFailure(
                code: code, providerError: s.text(21), providerDescription: s.text(22), message: s.text(23) ?? "")
        }
        let hosts = s.text(10) ?? ""
        var options = LoginOptions()
        options.resume = resumeMode.rawValue
        options.resumeHosts = hosts.isEmpty ? [] : hosts.split(separator: " ").map(String.init)
        options.resumePathPrefix = s.text(11)
        options.requireIssuer = s.int64(15) != 0
        let login = CodeLogin(
            source: source, state: state, nonce: s.text(5),
            codeVerifier: !status.isFinished || (status == .completed && !released) ? verifier : nil,
            redirect: redirect, appCallback: appCallback, authorizationOrigin: origin, options: options,
            browser: s.text(13), issuer: s.text(14), exchange: s.text(29).flatMap { TokenExchange(schema2: $0) },
            resumeOpened: s.int64(24) != 0)
        return Session(
            id: id, owner: s.text(2).map { Caller(name: $0) }, claimTokenDigest: s.blob(3), login: .code(login),
            status: status,
            result: result, failure: failure, released: released, createdAt: s.int64(26), expiresAt: s.int64(27),
            finishedAt: s.isNull(28) ? nil : s.int64(28))
    }
}
