import Testing

@testable import LinkRouterCore

/// oidc-agent's client protocol in the core: a message told apart from what a
/// connection has read so far, a request read as oidc-agent reads it, and the
/// answers in its shapes and words.
@Suite("oidc-agent's protocol: frames, requests, answers")
struct AgentProtocolCoreTests {
    static func frame(_ s: String, keyed: Bool = false) -> AgentFrame {
        AgentFrame.classify(Array(s.utf8), afterKeyExchange: keyed)
    }

    static let key = String(repeating: "A", count: 43) + "="
    static let nonce = String(repeating: "B", count: 32)

    @Test(
        "frames: a JSON object once its braces close (not inside strings); a public key at 44 characters; LEN:NONCE:BOX once the box holds LEN and the MAC; anything else malformed"
    )
    func frames() {
        #expect(Self.frame("") == .incomplete && Self.frame("  ") == .incomplete)
        #expect(Self.frame(#"{"request":"acc"#) == .incomplete)
        #expect(Self.frame(#"{"request":"a}{"#) == .incomplete, "a brace inside a string")
        #expect(Self.frame(#" {"a":{"b":"\"}"}}"#) == .json)
        #expect(Self.frame(#"{"a":1}"#, keyed: true) == .json, "plain JSON after a key exchange")
        #expect(Self.frame(String(Self.key.prefix(20))) == .incomplete)
        #expect(Self.frame(Self.key) == .publicKey(Self.key))
        #expect(Self.frame(Self.key + "AAAA") != .publicKey(Self.key + "AAAA"))
        if case .malformed = Self.frame("hello agent") {} else { Issue.record("words are not a key") }
        if case .malformed = Self.frame(String(repeating: "A", count: 44)) {} else { Issue.record("unpadded") }
        // 16 bytes of MAC and 2 of text: 18 bytes, 24 characters of base64.
        let box = String(repeating: "C", count: 24)
        #expect(Self.frame("2:\(Self.nonce):\(box)", keyed: true) == .sealed(length: 2, nonce: Self.nonce, box: box))
        #expect(Self.frame("2:\(Self.nonce):\(box.prefix(20))", keyed: true) == .incomplete, "the box is not all there")
        #expect(Self.frame("9:\(Self.nonce):\(box)", keyed: true) == .incomplete, "shorter than LEN and the MAC")
        #expect(Self.frame("2:\(Self.nonce.prefix(10))", keyed: true) == .incomplete)
        for bad in [
            "x:\(Self.nonce):\(box)", "2:\(Self.nonce.prefix(31))!:\(box)", "2:short:\(box)", "12345678901:a:b",
        ] {
            if case .malformed = Self.frame(bad, keyed: true) {} else { Issue.record("\(bad) is not malformed") }
        }
    }

    @Test(
        "requests: a token by account (the account first) or by issuer, its scope, audience, hint and min_valid_period (a number or its text; -1 any token); the ID token; loaded_accounts; the refusals in oidc-agent's words"
    )
    func requests() throws {
        let byName = try AgentRequest.parse(
            .object([
                ("request", .string("access_token")), ("account", .string("work")), ("issuer", .string("https://i/")),
                ("min_valid_period", .string("120")), ("scope", .string("openid")), ("audience", .string("api")),
                ("application_hint", .string("oidc-token")),
            ]))
        var expected = TokenRequest()
        expected.minValid = 120
        expected.scope = "openid"
        expected.audience = "api"
        expected.applicationHint = "oidc-token"
        #expect(byName == .token(account: "work", expected))
        let byIssuer = try AgentRequest.parse(
            .object([
                ("request", .string("access_token")), ("issuer", .string("https://i/")),
                ("min_valid_period", .integer(-1)), ("account", .string("")),
            ]))
        var issuer = TokenRequest()
        issuer.issuer = "https://i/"
        #expect(byIssuer == .token(account: "", issuer))
        var id = TokenRequest()
        id.idToken = true
        #expect(
            try AgentRequest.parse(.object([("request", .string("id_token")), ("account", .string("w"))]))
                == .token(account: "w", id))
        #expect(try AgentRequest.parse(.object([("request", .string("loaded_accounts"))])) == .loadedAccounts)
        #expect(try AgentRequest.parse(.object([("request", .string("account_info"))])) == .accountInfo)

        func refusal(_ v: JSONValue) -> AgentRefusal? {
            do {
                _ = try AgentRequest.parse(v)
                return nil
            } catch { return error }
        }
        #expect(refusal(.array([]))?.error == "Bad Request: the request is not a JSON object")
        #expect(refusal(.object([("account", .string("w"))]))?.error == "Bad Request: No request type.")
        #expect(refusal(.object([("request", .string("fly"))]))?.error == "Bad Request: Unknown request type.")
        #expect(refusal(.object([("request", .string("access_token"))]))?.error == "Not yet implemented")
        let gen = refusal(.object([("request", .string("gen"))]))
        #expect(gen?.error == "linkrouter does not serve oidc-agent's gen request")
        #expect(gen?.info?.contains("linkctl account add") == true)
        #expect(
            refusal(.object([("request", .string("access_token")), ("account", .integer(3))]))?.error
                == "Bad Request: account is not a string")
        #expect(
            refusal(
                .object([
                    ("request", .string("access_token")), ("account", .string("w")), ("min_valid_period", .integer(-2)),
                ]))?.error == "Bad Request: min_valid_period is a number of seconds")
    }

    @Test(
        "answers: a token with its issuer (a trailing /) and expiry; the ID token; loaded accounts sorted; an unknown name, one not signed in, by issuer, and a denial in oidc-agent's words with linkrouter's as info"
    )
    func answers() {
        var set = TokenSet(
            accessToken: "AT", tokenType: "Bearer", expiresAt: 2000, refreshToken: "RT", idToken: "ID", scope: nil)
        set.idTokenExpiresAt = 1500
        var a = TokenAnswer(tokens: set, kind: .access)
        a.issuer = "https://id.example"
        let byName = AgentRequest.token(account: "work", TokenRequest())
        #expect(
            AgentAnswer.json(.token(a), to: byName)
                == .object([
                    ("status", .string("success")), ("access_token", .string("AT")),
                    ("issuer", .string("https://id.example/")), ("expires_at", .integer(2000)),
                ]))
        a.kind = .id
        #expect(AgentAnswer.json(.token(a), to: byName)["id_token"] == .string("ID"))
        #expect(AgentAnswer.json(.token(a), to: byName)["expires_at"] == .integer(1500))

        let unknown = RouterError(.unknownAccount, "no account work")
        #expect(
            AgentAnswer.json(.refused(unknown), to: byName)["error"]
                == .string("No account configured with that short name"))
        #expect(AgentAnswer.json(.refused(unknown), to: byName)["info"] == .string("no account work"))
        let byIssuer = AgentRequest.token(account: "", TokenRequest())
        #expect(AgentAnswer.json(.refused(unknown), to: byIssuer)["error"] == .string("account not loaded"))
        let idle = RouterError(.notSignedIn, "work is not signed in")
        #expect(AgentAnswer.json(.refused(idle), to: byName)["error"] == .string("account not loaded"))
        #expect(
            AgentAnswer.json(.refused(RouterError(.accessDenied, "no")), to: byName)["error"]
                == .string("operation forbidden"))
        let other = RouterError(.refreshFailed, "the provider did not answer")
        #expect(
            AgentAnswer.json(.refused(other), to: byName)
                == .object([("status", .string("failure")), ("error", .string("the provider did not answer"))]))
        #expect(AgentAnswer.json(.none, to: byName)["status"] == .string("failure"))
    }

    @Test(
        "a forward: checked (a host, one to 16 of the caller's accounts, a scope of scope-tokens); a request through it names one of its accounts (by issuer: its account there), at most its scope (its scope when none is asked) and its audience; loaded_accounts and account_info show its accounts only"
    )
    func forwards() throws {
        let work = try AccountTokenTests.account("work")
        let other = try AccountTokenTests.account("other")
        var f = AgentForward()
        f.host = "build01"
        f.accounts = ["work", "work"]
        f.scope = "openid email"
        #expect(try f.checked(mine: [work, other]).accounts == ["work"])
        func with(_ change: (inout AgentForward) -> Void) -> AgentForward {
            var b = f
            change(&b)
            return b
        }
        let bad: [AgentForward] = [
            with { $0.host = "" }, with { $0.host = "two words" }, with { $0.accounts = [] },
            with { $0.scope = "a\"b" },
        ]
        for b in bad {
            #expect(throws: RouterError.self) { try b.checked(mine: [work]) }
        }
        #expect(throws: RouterError.self) { try f.checked(mine: [other]) }

        let forward = try f.checked(mine: [work, other])
        var asked = TokenRequest()
        var expected = TokenRequest()
        expected.scope = "openid email"
        #expect(
            try forward.admit(.token(account: "work", asked), declared: [work, other])
                == .token(account: "work", expected))
        asked.issuer = AccountTokenTests.issuer + "/"
        #expect(
            try forward.admit(.token(account: "", asked), declared: [work, other]) == .token(account: "work", expected))
        func refused(_ r: AgentRequest, through fwd: AgentForward) -> AgentRefusal? {
            do {
                _ = try fwd.admit(r, declared: [work, other])
                return nil
            } catch { return error }
        }
        #expect(
            refused(.token(account: "other", TokenRequest()), through: forward)?.error
                == "No account configured with that short name")
        var wider = TokenRequest()
        wider.scope = "openid profile"
        #expect(
            refused(.token(account: "work", wider), through: forward)?.info
                == "this forward serves at most the scope openid email")
        var audience = forward
        audience.audience = "api"
        var elsewhere = TokenRequest()
        elsewhere.audience = "other-api"
        #expect(refused(.token(account: "work", elsewhere), through: audience)?.error == "operation forbidden")
        // linkctl's own request names any option GetToken takes: never through a forward.
        #expect(
            refused(.getToken(account: "work", options: .object([])), through: forward)?.info
                == "linkrouter's own requests are not served through a forward")

        let names = JSONValue.object([
            ("status", .string("success")), ("info", .array([.string("other"), .string("work")])),
        ])
        #expect(forward.shown(names)["info"] == .array([.string("work")]))
        let info = AgentAnswer.accountInfo([
            AccountSummary(account: other, tokens: nil), AccountSummary(account: work, tokens: nil),
        ])
        let both = JSONValue.object([("other", .bool(false)), ("work", .bool(false))])
        #expect(
            info
                == .object([
                    (AccountTokenTests.issuer + "/", .object([("pubclient", .bool(true)), ("accounts", both)]))
                ]))
        let shown = forward.shown(.object([("status", .string("success")), ("info", info)]))
        let onlyWork = JSONValue.object([("work", .bool(false))])
        #expect(
            shown["info"]
                == .object([
                    (AccountTokenTests.issuer + "/", .object([("pubclient", .bool(true)), ("accounts", onlyWork)]))
                ]))
    }
}
