import Testing

@testable import LinkRouterCore

/// A step-up (RFC 9470) in the core: the two options read, what a sign-in's
/// ID token must say, the login that asks the provider for it, and a
/// `GetToken` that hands out a token only from a sign-in that meets it —
/// from memory, and after a keyring read.
@Suite("Step-up: acr_values and max_age")
struct StepUpTests {
    static let now: Int64 = 1_000_000

    @Test(
        "the options read: none is no step-up; classes deduplicated in order, at most 16, printable tokens; the parameters and linkctl's flags; stored and read back, damage refused"
    )
    func options() throws {
        #expect(try StepUp.make(acrValues: nil, maxAge: nil) == nil)
        let s = try #require(try StepUp.make(acrValues: "urn:b urn:a urn:b", maxAge: 300))
        #expect(s.acrValues == ["urn:b", "urn:a"] && s.maxAge == 300)
        #expect(s.parameters.map { "\($0.0)=\($0.1)" } == ["acr_values=urn:b urn:a", "max_age=300"])
        #expect(s.flags == "--acr-values 'urn:b urn:a' --max-age 300")
        #expect(try StepUp.make(acrValues: nil, maxAge: 0)?.flags == "--max-age 0")
        for bad in ["", "a\tb", "a\"b", (1...17).map { "c\($0)" }.joined(separator: " ")] {
            #expect(throws: RouterError.self) { try StepUp.make(acrValues: bad, maxAge: nil) }
        }
        let (acr, age) = s.stored
        #expect(StepUp(stored: acr, age) == s)
        #expect(StepUp(stored: nil, nil) == nil && StepUp(stored: "x", "soon") == nil)
    }

    @Test(
        "a sign-in meets it when its acr is one of the classes and its auth_time is within max_age (120 s of clock skew); each shortfall said"
    )
    func unmet() throws {
        let s = StepUp(acrValues: ["urn:mfa", "urn:hwk"], maxAge: 600)
        #expect(s.unmet(acr: "urn:hwk", authTime: Self.now - 700, now: Self.now) == nil, "within the skew")
        #expect(s.unmet(acr: nil, authTime: Self.now, now: Self.now)?.contains("names no authentication class") == true)
        #expect(
            s.unmet(acr: "urn:pwd", authTime: Self.now, now: Self.now)?.contains(
                "\"urn:pwd\", not one of urn:mfa urn:hwk") == true)
        #expect(s.unmet(acr: "urn:mfa", authTime: nil, now: Self.now)?.contains("auth_time") == true)
        #expect(
            s.unmet(acr: "urn:mfa", authTime: Self.now - 721, now: Self.now)
                == "was made 721 s ago, more than max_age 600 s"
        )
        // Only an age asked: any class will do.
        #expect(StepUp(acrValues: [], maxAge: 60).unmet(acr: nil, authTime: Self.now - 10, now: Self.now) == nil)
    }

    @Test(
        "an ID token checked against the step-up its login asked for: refused with why (IDTokenRejected), accepted when met; a refresh asks none"
    )
    func idToken() throws {
        let asked = StepUp(acrValues: ["urn:mfa"], maxAge: 600)
        func checked(_ acr: String?, _ authTime: Int64?, stepUp: StepUp? = asked) -> RouterError? {
            let claims = OpenIDTests.claims { members in
                if let acr { members.append(("acr", .string(acr))) }
                if let authTime { members.append(("auth_time", .integer(authTime))) }
            }
            do {
                try IDTokenClaims.check(
                    claims,
                    .init(issuer: OpenIDTests.issuer, clientID: "client", nonce: "nonce-1", stepUp: stepUp),
                    now: Fixtures.now)
                return nil
            } catch { return error }
        }
        #expect(checked("urn:mfa", Fixtures.now - 5) == nil)
        let weak = try #require(checked("urn:pwd", Fixtures.now - 5))
        #expect(weak.code == .idTokenRejected && weak.message.contains("did not sign the person in as asked"))
        // Glewlwyd 2.7.5 says auth_time 0.
        #expect(checked("urn:mfa", 0)?.message.contains("more than max_age 600 s") == true)
        #expect(checked(nil, nil, stepUp: nil) == nil)
    }

    @Test(
        "a login asking for it: acr_values and max_age in the authorize URL; refused without the daemon's exchange, with an adopted URL, twice (option and extra_params), or without openid; an account's own acr_values overridden for this login"
    )
    func login() throws {
        var r = OpenIDTests.exchangeRequest()
        r.acrValues = "urn:mfa"
        r.maxAge = 0
        let plan = try SessionPlan.make(
            r, metadata: DPoPBindingTests.metadata(), owner: Fixtures.caller, limits: Limits())
        let url = plan.authorizeURL(secrets: DPoPBindingTests.secrets(key: nil))
        #expect(url.contains("&acr_values=urn%3Amfa") && url.contains("&max_age=0"), "\(url)")
        #expect(plan.exchange?.stepUp == StepUp(acrValues: ["urn:mfa"], maxAge: 0))

        func refusal(_ edit: (inout SessionRequest) -> Void) -> String? {
            var bad = r
            edit(&bad)
            do {
                _ = try SessionPlan.make(
                    bad, metadata: DPoPBindingTests.metadata(), owner: Fixtures.caller, limits: Limits())
                return nil
            } catch { return error.code == .invalidArgument ? error.message : "\(error)" }
        }
        #expect(refusal { $0.exchange = false }?.contains("need exchange") == true)
        #expect(refusal { $0.extraParams = ["max_age": "5"] }?.contains("given twice") == true)
        #expect(refusal { $0.scope = "profile" }?.contains("must include openid") == true)
        #expect(refusal { $0.acrValues = "a\u{7f}" }?.contains("acr_values must be") == true)

        var account = r
        account.account = "work"
        account.extraParams = ["acr_values": "urn:pwd"]
        let overridden = try SessionPlan.make(
            account, metadata: DPoPBindingTests.metadata(), owner: Fixtures.caller, limits: Limits())
        let overriddenURL = overridden.authorizeURL(secrets: DPoPBindingTests.secrets(key: nil))
        #expect(overriddenURL.contains("acr_values=urn%3Amfa") && !overriddenURL.contains("urn%3Apwd"))
    }

    static func signedIn(acr: String?, authTime: Int64?) -> TokenSet {
        var t = TokenSet(
            accessToken: "a1", tokenType: "Bearer", expiresAt: now + 3600, refreshToken: "r1", idToken: nil,
            scope: "openid")
        t.acr = acr
        t.authTime = authTime
        return t
    }

    static func asking(_ acr: String?, _ maxAge: UInt32? = nil) -> TokenRequest {
        var r = TokenRequest()
        r.acrValues = acr
        r.maxAge = maxAge
        return r
    }

    @Test(
        "GetToken with a step-up: from memory when the sign-in meets it; StepUpRequired naming the sign-in that asks for it when not, nothing started; a waiter on a keyring read refused the same way when the set read does not meet it"
    )
    func getToken() throws {
        var router = AccountTokenTests.router(":1.1")
        let account = try AccountTokenTests.account()
        var turn = Turn(router, now: Self.now)
        let kept = AccountKeeper.keepTokens(
            Self.signedIn(acr: "urn:pwd", authTime: Self.now - 300), for: account.key, inMemoryOnly: true, &turn)
        router.apply(core: kept.core)

        let met = router.accountCall(
            .getToken(account.name, Self.asking("urn:mfa urn:pwd", 600)), accounts: [account], caller: ":1.1",
            now: Self.now)
        guard case .token(let answer) = met.reply else { throw AccountTokenTests.Failure("not answered: \(met.reply)") }
        #expect(answer.tokens.accessToken == "a1")

        let unmet = router.accountCall(
            .getToken(account.name, Self.asking("urn:mfa")), accounts: [account], caller: ":1.1", now: Self.now)
        guard case .refused(let e) = unmet.reply else { throw AccountTokenTests.Failure("not refused: \(unmet.reply)") }
        #expect(e.code == .stepUpRequired && e.message.contains("linkctl login work --acr-values 'urn:mfa'"))
        #expect(AccountTokenTests.requests(unmet).isEmpty)
        let old = router.accountCall(
            .getToken(account.name, Self.asking(nil, 10)), accounts: [account], caller: ":1.1", now: Self.now)
        guard case .refused(let e2) = old.reply else {
            throw AccountTokenTests.Failure("old: not refused: \(old.reply)")
        }
        #expect(e2.code == .stepUpRequired && e2.message.contains("was made 300 s ago, more than max_age 10 s"))

        // A daemon that has not read the keyring yet: the caller waits on the read, then hears the refusal.
        var fresh = AccountTokenTests.router(":1.1")
        let waiting = fresh.accountCall(
            .getToken(account.name, Self.asking("urn:mfa")), accounts: [account], caller: ":1.1", now: Self.now)
        guard case .held(let held) = waiting.reply, let read = AccountTokenTests.started(waiting).first else {
            throw AccountTokenTests.Failure("not held on a read: \(waiting.reply)")
        }
        fresh.apply(core: waiting.core)
        let landed = fresh.completed(
            read.0, .flight(.read(.success(Self.signedIn(acr: "urn:pwd", authTime: Self.now)))), now: Self.now)
        guard case .refused(let e3)? = AccountTokenTests.answers(landed)[held] else {
            throw AccountTokenTests.Failure("not answered: \(landed.effects)")
        }
        #expect(e3.code == .stepUpRequired)
    }
}
