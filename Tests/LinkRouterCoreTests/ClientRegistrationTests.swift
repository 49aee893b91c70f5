import Testing

@testable import LinkRouterCore

/// The registration machine (`ClientRegistration`, issue 48) and the reading
/// of a registration endpoint's answer (`RegistrationAnswer`), without a
/// provider: each step's operation, each refusal's words, and nothing
/// declared until every step passed.
@Suite("Client registration: the machine and the answer")
struct ClientRegistrationTests {
    typealias A = AccountTokenTests
    typealias Failure = AccountTokenTests.Failure
    static let endpoint = A.issuer + "/register"

    static var metadata: ProviderMetadata {
        var m = A.metadata
        m.registrationEndpoint = endpoint
        return m
    }

    static func request(name: String = "linkrouter on box") -> AccountRequest {
        var r = AccountRequest()
        r.issuer = A.issuer
        r.clientName = name
        return r
    }

    static func sent(redirect: String = "http://127.0.0.1:4242/callback", token: String? = nil)
        -> ClientRegistrationRequest
    {
        ClientRegistrationRequest(
            endpoint: endpoint, initialAccessToken: token, clientName: "linkrouter on box", redirectURI: redirect,
            grantTypes: ["authorization_code", "refresh_token"], scope: "openid")
    }

    /// AddAccount with no client: held, the issuer's metadata asked first; the op.
    static func begin(_ router: inout Router, _ r: AccountRequest = request()) throws -> OperationID {
        let add = router.accountCall(.add("work", r), accounts: [], caller: ":1.4", now: A.now)
        guard case .held(let op) = add.reply, let (started, work) = A.started(add).first,
            case .registration(.discover(let issuer)) = work
        else { throw Failure("no discovery: \(add)") }
        #expect(started == op && issuer == A.issuer)
        router.apply(core: add.core)
        return op
    }

    @Test(
        "the steps: metadata, a free port for the loopback redirect, the RFC 7591 request, the management kept, then the account written with the client's id, exact redirect and name; nothing declared before"
    )
    func steps() throws {
        var router = A.router(":1.4")
        let op = try Self.begin(&router)
        let m = router.completed(op, .registration(.metadata(.success(Self.metadata))), now: A.now)
        guard case .registration(.pickPort(let binding))? = A.started(m).first?.1 else { throw Failure("\(m)") }
        #expect(binding.addresses == ["127.0.0.1"] && binding.port == 0)
        router.apply(core: m.core)
        let p = router.completed(op, .registration(.port(.success(4242))), now: A.now)
        guard case .registration(.register(let sent))? = A.started(p).first?.1 else { throw Failure("\(p)") }
        #expect(sent == Self.sent())
        #expect(
            sent.document["token_endpoint_auth_method"] == .string("none")
                && sent.document["application_type"] == .string("native"))
        router.apply(core: p.core)
        let credentials = RegistrationCredentials(clientID: "c1", uri: Self.endpoint + "/c1", token: "rat")
        let client = RegisteredClient(clientID: "c1", clientName: "linkrouter on box", management: credentials)
        let r = router.completed(op, .registration(.registered(.success(.registered(client)))), now: A.now)
        guard case .registration(.keep(let key, let kept))? = A.started(r).first?.1 else { throw Failure("\(r)") }
        #expect(key.name == "work" && kept == credentials && A.answers(r).isEmpty)
        router.apply(core: r.core)
        let k = router.completed(op, .registration(.kept(nil)), now: A.now)
        guard case .accountFile(.write(let account))? = A.started(k).first?.1 else { throw Failure("\(k)") }
        #expect(
            account.clientID == "c1" && account.redirectURI == "http://127.0.0.1:4242/callback"
                && account.clientName == "linkrouter on box" && account.registered == .managed)
        #expect(account.fileEntries.contains { $0 == ("registered", "managed") })
        #expect(!account.fileEntries.contains { $0.key == "registration_token" })
        router.apply(core: k.core)
        let written = router.completed(op, .accountFile(.done(nil)), now: A.now)
        #expect(A.answers(written)[op] == Transition.Reply.none)
    }

    @Test(
        "refusals and faults: no registration endpoint names --client-id; a refusal, no port, a keyring that cannot keep the management (the client deleted again, said even when that fails); an answer the stage did not ask for changes nothing"
    )
    func faults() throws {
        func refusal(_ t: Transition, _ op: OperationID) -> RouterError? {
            if case .refused(let e)? = A.answers(t)[op] { return e }
            return nil
        }
        var router = A.router(":1.4")
        var op = try Self.begin(&router)
        let none = router.completed(op, .registration(.metadata(.success(A.metadata))), now: A.now)
        let said = try #require(refusal(none, op))
        #expect(said.code == .registrationFailed && said.message.contains("--client-id ID"), "\(said)")
        #expect(A.started(none).isEmpty)

        router = A.router(":1.4")
        op = try Self.begin(&router)
        router.apply(core: router.completed(op, .registration(.metadata(.success(Self.metadata))), now: A.now).core)
        // A stray answer (a keyring write's) in the port stage: logged, nothing started or answered.
        let stray = router.completed(op, .registration(.kept(nil)), now: A.now)
        #expect(A.started(stray).isEmpty && A.answers(stray).isEmpty && stray.core.isEmpty)
        let noPort = router.completed(
            op, .registration(.port(.failure(RouterError(.listenerFailed, "no port")))), now: A.now)
        #expect(refusal(noPort, op)?.code == .listenerFailed)

        // The keyring cannot keep the management: the client is deleted again, and the call hears the keyring's error.
        router = A.router(":1.4")
        op = try Self.begin(&router)
        router.apply(core: router.completed(op, .registration(.metadata(.success(Self.metadata))), now: A.now).core)
        router.apply(core: router.completed(op, .registration(.port(.success(4242))), now: A.now).core)
        let credentials = RegistrationCredentials(clientID: "c1", uri: Self.endpoint + "/c1", token: "rat")
        router.apply(
            core: router.completed(
                op,
                .registration(
                    .registered(
                        .success(
                            .registered(
                                RegisteredClient(clientID: "c1", clientName: "n", management: credentials))))),
                now: A.now
            ).core)
        let locked = router.completed(
            op, .registration(.kept(RouterError(.keyringLocked, "locked"))), now: A.now)
        #expect(A.started(locked).first?.1 == .registration(.undo(credentials)) && A.answers(locked).isEmpty)
        router.apply(core: locked.core)
        let undoFailed = router.completed(
            op, .registration(.undone(RouterError(.registrationFailed, "HTTP 500"))), now: A.now)
        let e = try #require(refusal(undoFailed, op))
        #expect(
            e.code == .keyringLocked && e.message.contains("deleted at") && e.message.contains("by hand"), "\(e)")
        #expect(!A.started(undoFailed).contains { if case .accountFile = $0.1 { true } else { false } })
    }

    @Test(
        "the answer read: 201 and 200 are a client; no client_id, a secret, another auth method, other redirects are refused (deleted again where management came); 400 says the provider's error; 401 asks for an initial access token or says it was refused; a management URL over http from an https endpoint is none"
    )
    func answers() {
        let sent = Self.sent()
        func read(_ status: Int, _ body: JSONValue?, _ request: ClientRegistrationRequest = Self.sent())
            -> RegistrationAnswer
        {
            RegistrationAnswer.read(status: status, body: body, request: request)
        }
        let good: JSONValue = .object([
            ("client_id", .string("c1")), ("client_name", .string("linkrouter on box")),
            ("redirect_uris", .array([.string(sent.redirectURI)])), ("token_endpoint_auth_method", .string("none")),
            ("registration_client_uri", .string(Self.endpoint + "/c1")),
            ("registration_access_token", .string("rat")),
        ])
        let credentials = RegistrationCredentials(clientID: "c1", uri: Self.endpoint + "/c1", token: "rat")
        let client = RegisteredClient(clientID: "c1", clientName: "linkrouter on box", management: credentials)
        #expect(read(201, good) == .registered(client) && read(200, good) == .registered(client))
        func with(_ key: String, _ value: JSONValue) -> JSONValue {
            guard case .object(let members) = good else { return good }
            return .object(members.filter { $0.0 != key } + [(key, value)])
        }
        func message(_ a: RegistrationAnswer) -> String {
            switch a {
            case .registered: "registered"
            case .unusable(let e, _), .refused(let e): e.message
            }
        }
        // An http management URL from an https endpoint is never sent the token: the client has no management.
        #expect(
            read(201, with("registration_client_uri", .string("http://id.example.com/register/c1")))
                == .registered(RegisteredClient(clientID: "c1", clientName: "linkrouter on box", management: nil)))
        #expect(message(read(201, with("client_id", .string("")))).contains("without a client_id"))
        #expect(
            read(201, with("client_secret", .string("s")))
                == .unusable(
                    RouterError(
                        .registrationFailed,
                        "the registration endpoint \(Self.endpoint) registered a confidential client (it sent a client_secret), not a public client with its redirect"
                    ), credentials))
        #expect(
            message(read(201, with("token_endpoint_auth_method", .string("client_secret_basic")))).contains(
                "authenticates with client_secret_basic"))
        #expect(
            message(read(201, with("redirect_uris", .array([.string("http://127.0.0.1:1/cb")])))).contains(
                "other redirect URIs"))
        let invalid = read(
            400,
            .object([
                ("error", .string("invalid_redirect_uri")), ("error_description", .string("only https or loopback")),
            ]))
        #expect(message(invalid).contains("HTTP 400: invalid_redirect_uri (only https or loopback)"))
        #expect(message(read(401, nil)).contains("--registration-token -"))
        #expect(message(read(401, nil, Self.sent(token: "t"))).contains("refused the initial access token"))
        #expect(message(read(500, nil)).contains("HTTP 500, no reason given"))
        #expect(message(read(201, .string("not an object"))).contains("without a JSON object"))
    }

    @Test(
        "declarations: registration_token only without client_id; registered is managed or unmanaged; an app's registered account declared again keeps its client, and a registered account is not replaced by another client"
    )
    func declarations() throws {
        var r = Self.request()
        r.clientID = "given"
        r.registrationToken = "t"
        #expect(
            throws: RouterError.invalid(
                "registration_token goes with a client linkrouter registers: leave out client_id")
        ) {
            _ = try Account.make(name: "work", r, owner: .user)
        }
        r.registrationToken = nil
        r.registered = "sometimes"
        #expect(throws: RouterError.self) { _ = try Account.make(name: "work", r, owner: .user) }
        r.registered = "managed"
        let registered = try Account.make(name: "work", r, owner: .user)

        var router = A.router(":1.4")
        // Declared again with no client (as an app does at each start): its client stands, nothing is registered.
        let again = router.accountCall(.add("work", Self.request()), accounts: [registered], caller: ":1.4", now: A.now)
        #expect(!A.started(again).contains { if case .registration = $0.1 { true } else { false } })
        // Another client over a client linkrouter registered: refused (the registration would be lost at the provider).
        var other = Self.request()
        other.clientID = "someone-elses"
        let replaced = router.accountCall(.add("work", other), accounts: [registered], caller: ":1.4", now: A.now)
        guard case .refused(let e) = replaced.reply else { throw Failure("\(replaced)") }
        #expect(e.message.contains("remove the account first"))
        router.apply(core: again.core)

        // An app registering under one of the person's names: refused before anything is registered, in the words of
        // every look-alike.
        router.apply(core: [.caller(":1.9", .flatpak("org.example.App"))])
        let lookAlike = router.accountCall(
            .add("work", Self.request()), accounts: [registered], caller: ":1.9", now: A.now)
        guard case .refused(let said) = lookAlike.reply else { throw Failure("\(lookAlike)") }
        #expect(said.code == .accessDenied && A.started(lookAlike).isEmpty)
        // Under a name of its own: registered for the app.
        let own = router.accountCall(.add("mine", Self.request()), accounts: [registered], caller: ":1.9", now: A.now)
        guard case .registration(.discover)? = A.started(own).first?.1 else { throw Failure("\(own)") }
    }
}
