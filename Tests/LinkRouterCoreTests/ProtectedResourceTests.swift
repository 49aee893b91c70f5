import Testing

@testable import LinkRouterCore

/// A protected resource's metadata (RFC 9728) as the core reads it, and the
/// `GetToken` a resource lookup makes of a call (`ResourceLookup.resolve`).
@Suite("Protected resources: metadata and the account they name")
struct ProtectedResourceTests {
    typealias A = AccountTokenTests
    static let url = "https://mcp.example.com/mcp"

    @Test("where the metadata is: the well-known path between host and path, a lone / dropped, the query kept")
    func metadataURL() {
        #expect(
            ProtectedResource.metadataURL(for: Self.url)
                == "https://mcp.example.com/.well-known/oauth-protected-resource/mcp")
        #expect(
            ProtectedResource.metadataURL(for: "https://api.example.com/")
                == "https://api.example.com/.well-known/oauth-protected-resource")
        #expect(
            ProtectedResource.metadataURL(for: "http://127.0.0.1:8080/a/b?x=1")
                == "http://127.0.0.1:8080/.well-known/oauth-protected-resource/a/b?x=1")
    }

    @Test(
        "the document's rules: resource identical to the URL asked for (a mix-up refused), issuers by the account rule, an http authorization server refused for an https resource, scopes kept; bad URLs refused before any request"
    )
    func document() throws {
        func doc(resource: String = Self.url, servers: [String] = [A.issuer]) -> JSONValue {
            .object([
                ("resource", .string(resource)), ("authorization_servers", .array(servers.map { .string($0) })),
                ("scopes_supported", .array([.string("mcp:read"), .string("bad scope\"")])),
            ])
        }
        let good = try ProtectedResource(document: doc(), expected: Self.url, from: "m")
        #expect(good.authorizationServers == [A.issuer] && good.scopesSupported == ["mcp:read"])
        #expect(throws: RouterError.self) {
            try ProtectedResource(document: doc(resource: Self.url + "/other"), expected: Self.url, from: "m")
        }
        do {
            _ = try ProtectedResource(
                document: doc(servers: ["http://127.0.0.1:8/oidc"]), expected: Self.url, from: "m")
            // A provider on this machine over http cannot speak for a resource elsewhere.
            Issue.record("an http issuer for an https resource was taken")
        } catch {
            #expect(error.message.contains("over http for an https resource"), "\(error)")
        }
        // A loopback resource may name a loopback provider (a test's, a device's).
        let local = "http://127.0.0.1:9/mcp"
        #expect(
            try ProtectedResource(
                document: doc(resource: local, servers: ["http://127.0.0.1:8/oidc"]), expected: local, from: "m"
            )
            .authorizationServers == ["http://127.0.0.1:8/oidc"])
        #expect(throws: RouterError.self) {
            try ProtectedResource(document: doc(servers: []), expected: Self.url, from: "m")
        }
        #expect(throws: RouterError.self) { try ProtectedResource(document: .array([]), expected: Self.url, from: "m") }
        for bad in [
            "ftp://x.example/a", "http://api.example.com/a", "https://u@x.example/a", "https://x.example/a#f", "mcp",
        ] {
            #expect(throws: RouterError.self, "\(bad)") { try ProtectedResource.check(bad, maxLength: 2048) }
        }
    }

    @Test(
        "a lookup's GetToken: the resource as resource; no name: the first authorization server the caller has an account at; a named account elsewhere refused; none refused naming account add; an app never given the person's by issuer"
    )
    func resolveToken() throws {
        let work = try A.account("work")
        var request = TokenRequest()
        request.forResource = Self.url
        let found = ProtectedResource(
            resource: Self.url, authorizationServers: ["https://other.example", A.issuer + "/"])
        func lookup(_ name: String, app: CallerApp = .host) -> ResourceLookup {
            ResourceLookup(.getToken(name, request), resource: Self.url, accounts: [work], app: app, caller: ":1.4")
        }
        func token(_ call: AccountCall) -> TokenRequest? {
            if case .getToken(_, let r) = call { return r }
            return nil
        }
        let resolved = try #require(token(try lookup("").resolve(found)))
        #expect(resolved.resources == [Self.url] && resolved.issuer == A.issuer + "/" && resolved.forResource == nil)
        #expect(try token(lookup("work").resolve(found))?.issuer == nil)
        let elsewhere = ProtectedResource(resource: Self.url, authorizationServers: ["https://other.example"])
        #expect(throws: RouterError.self) { try lookup("work").resolve(elsewhere) }
        do {
            _ = try lookup("").resolve(elsewhere)
            Issue.record("no account, yet resolved")
        } catch {
            #expect(error.code == .unknownAccount && error.message.contains("--for \(Self.url)"), "\(error)")
        }
        // An app sees only its own accounts when none is named: the person's is never picked for it.
        #expect(throws: RouterError.self) { try lookup("", app: .flatpak("org.example.App")).resolve(found) }
    }

    @Test(
        "a lookup's AddAccount: the first authorization server as issuer (one given must be listed), the resource, openid and the resource's scopes unless a scope is given"
    )
    func resolveDeclaration() throws {
        var request = AccountRequest()
        request.forResource = Self.url
        let found = ProtectedResource(
            resource: Self.url, authorizationServers: [A.issuer, "https://other.example"],
            scopesSupported: ["mcp:read", "openid"])
        func declared(_ r: AccountRequest) throws -> AccountRequest? {
            let call = try ResourceLookup(.add("mcp", r), resource: Self.url, accounts: [], app: .host, caller: ":1.4")
                .resolve(found)
            if case .add(_, let out) = call { return out }
            return nil
        }
        let out = try #require(try declared(request))
        #expect(
            out.issuer == A.issuer && out.resource == Self.url && out.scope == "openid mcp:read"
                && out.forResource == nil)
        var scoped = request
        scoped.scope = "openid"
        scoped.issuer = "https://other.example"
        #expect(try declared(scoped)?.scope == "openid" && declared(scoped)?.issuer == "https://other.example")
        scoped.issuer = "https://unlisted.example"
        #expect(throws: RouterError.self) { try declared(scoped) }
        // A file never carries `for`: the daemon writes what it found instead.
        #expect(throws: RouterError.self) { _ = try Account.make(name: "mcp", request, owner: .user) }
    }
}
