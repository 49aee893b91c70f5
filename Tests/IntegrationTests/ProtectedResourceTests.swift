import Foundation
import Glibc
import SecretServiceTesting
import SystemKit
import Testing

/// A token for a resource named only by its URL (issue 48): the resource's
/// metadata (RFC 9728) names where to sign in, the account there is found,
/// and the token is asked for that resource (RFC 8707) — at a real Glewlwyd,
/// with a stand-in resource of the tests' own (Fixtures/protected_resource.py)
/// that takes what the provider's userinfo accepts. Through linkctl and
/// `GetToken` over D-Bus; every bad document refused, nothing asked of the
/// provider, the daemon up.
@Suite("A resource that says where to sign in (RFC 9728)")
struct ProtectedResourceTests {
    /// Client registration's world (a keyring, Glewlwyd with open registration behind the tests' proxy, the
    /// daemon) and a resource that names that Glewlwyd.
    final class World {
        let base: ClientRegistrationTests.World
        let resource: ProtectedResourceStandIn
        var desktop: TestDesktop { base.desktop }
        var proxy: TamperProxy { base.proxy }
        var provider: Glewlwyd { base.provider }
        var daemon: DaemonProcess { base.daemon }

        init() throws {
            base = try ClientRegistrationTests.World()
            resource = try ProtectedResourceStandIn(desktop: base.desktop, provider: base.provider)
        }

        /// The refreshes the provider was asked for, with the resources they named.
        func refreshes() -> [[String: Any]] {
            proxy.requests().filter { $0["grant_type"] as? String == "refresh_token" }
        }

        func json(_ r: Subprocess.Outcome) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any]) ?? [:]
        }
    }

    @Test(
        "a client registered, signed in once, then linkctl token --for URL and GetToken's for: the account found from the resource's metadata, the token asked for that resource and taken by it; asked again, from memory with the metadata cached"
    )
    func tokenFor() throws {
        let w = try World()
        #expect(try w.desktop.linkctl("account", "add", "work", "--issuer", w.provider.issuer).status == 0)
        let login = try w.desktop.signIn("work", at: w.provider)
        #expect(login.status == 0, "\(login.errorText)")

        let first = try w.desktop.linkctl("token", "--for", w.resource.url, "--json")
        #expect(first.status == 0, "\(first.errorText) \(w.daemon.log.suffix(600))")
        let answer = w.json(first)
        let token = try #require(answer["token"] as? String)
        #expect(answer["resource"] as? [String] == [w.resource.url], "\(answer)")
        #expect(w.refreshes().last?["resource"] as? [String] == [w.resource.url], "\(w.refreshes())")
        // The resource takes it.
        let used = try w.desktop.run([
            "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer " + token,
            w.resource.url,
        ])
        #expect(used.text == "200", "\(used.text) \(w.resource.log())")

        // Named, and over D-Bus with an empty name: the same token, from memory; the metadata was fetched once.
        let refreshes = w.refreshes().count
        let named = try w.desktop.linkctl("token", "work", "--for", w.resource.url)
        #expect(named.status == 0 && named.text.trimmingCharacters(in: .newlines) == token, "\(named.errorText)")
        let bus = try w.desktop.run([
            "gdbus", "call", "--session", "--dest", "org.linkrouter.LinkRouter1", "--object-path",
            "/org/linkrouter/LinkRouter1", "--method", "org.linkrouter.LinkRouter1.GetToken", "",
            "{'for': <'\(w.resource.url)'>}",
        ])
        #expect(bus.status == 0 && bus.text.contains(token), "\(bus.text) \(bus.errorText)")
        #expect(w.refreshes().count == refreshes)
        #expect(w.resource.log().filter { $0.hasPrefix("metadata") } == ["metadata honest"], "\(w.resource.log())")
    }

    @Test(
        "refused: metadata naming another resource (a mix-up), not JSON, with no authorization server, or missing; an account at another issuer named for it; no account where it says to sign in — each a clear error, nothing asked of the provider, the daemon up"
    )
    func refusals() throws {
        let w = try World()
        #expect(
            try w.desktop.linkctl(
                "account", "add", "elsewhere", "--issuer", "https://id.example.com", "--client-id", "c"
            ).status == 0)
        for (mode, words) in [
            ("other-resource", "must be identical (RFC 9728 §3.3)"), ("malformed", "not a JSON document"),
            ("no-servers", "names no authorization_servers"), ("missing", "publishes no resource metadata"),
        ] {
            try w.resource.set(mode)
            let r = try w.desktop.linkctl("token", "--for", w.resource.url)
            #expect(
                r.status != 0 && r.errorText.contains("DiscoveryFailed") && r.errorText.contains(words),
                "\(mode): \(r.errorText)")
        }
        try w.resource.set("honest")
        let none = try w.desktop.linkctl("token", "--for", w.resource.url)
        #expect(
            none.status != 0 && none.errorText.contains("UnknownAccount")
                && none.errorText.contains("linkctl account add NAME --for \(w.resource.url)"),
            "\(none.errorText)")
        let other = try w.desktop.linkctl("token", "elsewhere", "--for", w.resource.url)
        #expect(
            other.status != 0 && other.errorText.contains("AccessDenied") && other.errorText.contains("not sent there"),
            "\(other.errorText)")
        let bad = try w.desktop.linkctl("token", "--for", "ftp://example.com/x")
        #expect(bad.status != 0 && bad.errorText.contains("for takes a resource's URL"), "\(bad.errorText)")
        #expect(w.refreshes().isEmpty && w.proxy.requests().allSatisfy { $0["grant_type"] == nil })
        #expect(w.daemon.isRunning)
    }
}

extension ProtectedResourceTests {
    @Test(
        "metadata not at its well-known place: linkctl fetch sends the request without a token, the 401 names where the metadata is (resource_metadata), and the request goes again with the token found from there; token --for URL --resource-metadata and GetToken's resource_metadata alike; refused without for, or not a URL"
    )
    func metadataElsewhere() throws {
        let w = try World()
        #expect(try w.desktop.linkctl("account", "add", "mcp", "--for", w.resource.url).status == 0)
        #expect(try w.desktop.signIn("mcp", at: w.provider).status == 0)
        // A second resource at the same provider, whose metadata is elsewhere (the first one's is cached).
        let other = try ProtectedResourceStandIn(desktop: w.desktop, provider: w.provider, name: "elsewhere")
        try other.set("elsewhere")
        let at = "http://127.0.0.1:\(other.port)/meta/mcp"

        let fetched = try w.desktop.linkctl("fetch", other.url)
        #expect(fetched.status == 0 && fetched.text.contains("\"ok\": true"), "\(fetched.text) \(fetched.errorText)")
        #expect(fetched.errorText.contains("answered 401 naming its metadata at \(at)"), "\(fetched.errorText)")
        let seen = other.log()
        #expect(
            seen.count == 4 && seen[0] == "metadata elsewhere" && seen[1] == "401 no token"
                && seen[2] == "metadata elsewhere /meta/mcp" && seen[3].hasPrefix("200 "), "\(seen)")

        let named = try w.desktop.linkctl("token", "--for", other.url, "--resource-metadata", at, "--json")
        #expect(named.status == 0 && w.json(named)["resource"] as? [String] == [other.url], "\(named.errorText)")
        let bus = try w.desktop.run([
            "gdbus", "call", "--session", "--dest", "org.linkrouter.LinkRouter1", "--object-path",
            "/org/linkrouter/LinkRouter1", "--method", "org.linkrouter.LinkRouter1.GetToken", "",
            "{'for': <'\(other.url)'>, 'resource_metadata': <'\(at)'>}",
        ])
        #expect(bus.status == 0 && bus.text.contains("'token'"), "\(bus.errorText)")

        let alone = try w.desktop.linkctl("token", "mcp", "--resource-metadata", at)
        #expect(alone.status != 0 && alone.errorText.contains("give it with for"), "\(alone.errorText)")
        let bad = try w.desktop.linkctl("token", "--for", other.url, "--resource-metadata", "ftp://x/y")
        #expect(bad.status != 0 && bad.errorText.contains("resource_metadata takes"), "\(bad.errorText)")
        #expect(w.daemon.isRunning)
    }

    @Test(
        "an https resource (over TLS, its certificate the daemon's one trust anchor) whose metadata names an http authorization server: refused for token --for and account add --for, the metadata read (not a TLS failure), nothing declared, the daemon up"
    )
    func httpServerForHTTPSResource() throws {
        let desktop = try TestDesktop()
        let bus = try PrivateBus(desktop: desktop)
        let provider = try Glewlwyd(desktop: desktop, redirectURIs: [AccountTests.redirect])
        let resource = try ProtectedResourceStandIn(desktop: desktop, provider: provider, tls: true)
        desktop.extraEnvironment["SSL_CERT_FILE"] = resource.certificate
        let daemon = try DaemonProcess(desktop: desktop)
        _ = bus
        #expect(resource.url.hasPrefix("https://") && provider.issuer.hasPrefix("http://"))

        let token = try desktop.linkctl("token", "--for", resource.url)
        #expect(
            token.status != 0 && token.errorText.contains("DiscoveryFailed")
                && token.errorText.contains("over http for an https resource"), "\(token.errorText)")
        let add = try desktop.linkctl("account", "add", "mcp", "--for", resource.url)
        #expect(
            add.status != 0 && add.errorText.contains("over http for an https resource"), "\(add.errorText)")
        #expect(resource.log().contains("metadata honest"), "read over TLS: \(resource.log())")
        let listed = try desktop.linkctl("accounts", "--json")
        #expect(listed.status == 0 && !listed.text.contains("\"mcp\""), "\(listed.text)")
        #expect(daemon.isRunning)
    }
}

extension ProtectedResourceTests {
    /// README's "Sign in to an MCP server" commands, as written but for the server's URL (the stand-in's) and the
    /// sign-in (`linkctl login mcp`, done as a person would at the provider: `TestDesktop.signIn`).
    static func readmeCommands() throws -> [String] {
        let readme = try FileSystem.readText(Paths.root + "/README.md")
        guard let heading = readme.range(of: "### Sign in to an MCP server"),
            let open = readme.range(of: "```sh\n", range: heading.upperBound..<readme.endIndex),
            let close = readme.range(of: "```", range: open.upperBound..<readme.endIndex)
        else { return [] }
        return readme[open.upperBound..<close.lowerBound].split(separator: "\n").compactMap { line in
            guard line.hasPrefix("$ ") else { return nil }
            // The comment after the command, if any, goes.
            let command = line.dropFirst(2)
            return String(command.range(of: "  #").map { command[..<$0.lowerBound] } ?? command)
                .trimmingCharacters(in: .whitespaces)
        }
    }

    @Test(
        "README's MCP example, run: the account declared from the server's metadata (a client registered at the provider), one sign-in, a token for that server alone, which the server takes"
    )
    func readmeExample() throws {
        let w = try World()
        let commands = try Self.readmeCommands()
        #expect(commands.count == 5, "\(commands)")
        for command in commands {
            let line = command.replacingOccurrences(of: "https://mcp.example.com/mcp", with: w.resource.url)
            if line == "linkctl login mcp" {
                let login = try w.desktop.signIn("mcp", at: w.provider)
                #expect(login.status == 0, "\(login.errorText)")
                continue
            }
            // linkctl by the name a person types, on PATH.
            let r = try w.desktop.run(["/bin/sh", "-c", "PATH=\(Paths.bin):$PATH; " + line])
            #expect(r.status == 0, "\(line): \(r.errorText) \(w.daemon.log.suffix(400))")
            if line.hasPrefix("curl") || line.hasPrefix("linkctl fetch") {
                #expect(r.text.contains("\"ok\": true"), "\(line): \(r.text)")
            }
        }
        let listed = try w.desktop.linkctl("accounts", "--json")
        #expect(listed.text.contains("\"registered\"") && listed.text.contains(w.resource.url), "\(listed.text)")
        #expect(w.refreshes().last?["resource"] as? [String] == [w.resource.url])
    }
}

extension ProtectedResourceTests {
    @Test(
        "linkctl fetch: the request with the token --for finds, the body as it came; invalid_token answered once with a fresh token; a server that keeps refusing asked twice, never a third time; insufficient_scope beyond the grant and a step-up the sign-in does not meet said, the answer as given (--fail: 22)"
    )
    func fetch() throws {
        let w = try World()
        #expect(try w.desktop.linkctl("account", "add", "mcp", "--for", w.resource.url).status == 0)
        #expect(try w.desktop.signIn("mcp", at: w.provider).status == 0)
        func requests() -> [String] { w.resource.log().filter { !$0.hasPrefix("metadata") } }

        let plain = try w.desktop.linkctl("fetch", w.resource.url)
        #expect(plain.status == 0 && plain.text.contains("\"ok\": true"), "\(plain.text) \(plain.errorText)")
        let posted = try w.desktop.linkctl(
            "fetch", "mcp", w.resource.url, "--data", "{\"jsonrpc\":\"2.0\"}", "--header",
            "Content-Type: application/json",
            "--include")
        #expect(posted.status == 0 && posted.text.hasPrefix("HTTP 200\n"), "\(posted.text) \(posted.errorText)")
        let refusedHeader = try w.desktop.linkctl("fetch", w.resource.url, "--header", "Authorization: Bearer mine")
        #expect(refusedHeader.status == 64)

        // invalid_token once: the refused token given back, a fresh one (a refresh at the provider), sent again.
        try w.resource.challenge("invalid-token-once")
        var before = requests().count
        let refreshes = w.refreshes().count
        let once = try w.desktop.linkctl("fetch", w.resource.url)
        #expect(once.status == 0 && once.text.contains("\"ok\": true"), "\(once.text) \(once.errorText)")
        #expect(once.errorText.contains("sent again with a fresh token"), "\(once.errorText)")
        #expect(requests().count == before + 2 && w.refreshes().count == refreshes + 1, "\(requests())")

        // A server that never takes a token: asked twice, not a third time; the answer as given, 22 with --fail.
        try w.resource.challenge("invalid-token-always")
        before = requests().count
        let loop = try w.desktop.linkctl("fetch", w.resource.url, "--fail")
        #expect(loop.status == 22 && loop.errorText.contains("not asked a third time"), "\(loop.errorText)")
        #expect(requests().count == before + 2, "\(requests())")

        // More scope than the sign-in granted: said, with how to get it; the request not sent again.
        try w.resource.challenge("insufficient-scope")
        before = requests().count
        let scope = try w.desktop.linkctl("fetch", w.resource.url)
        #expect(
            scope.status == 0 && scope.errorText.contains("beyond what mcp's sign-in granted")
                && scope.text.contains("insufficient-scope"), "\(scope.errorText)")
        #expect(requests().count == before + 1)

        // A stronger sign-in (RFC 9470): the account's sign-in (Glewlwyd names no acr) does not meet it, so the
        // sign-in that asks for it is said (StepUpTests signs in so), and the answer is as given.
        try w.resource.challenge("step-up")
        before = requests().count
        let stepUp = try w.desktop.linkctl("fetch", w.resource.url, "--fail")
        #expect(
            stepUp.status == 22 && stepUp.errorText.contains("acr_values=urn:example:mfa, max_age=0")
                && stepUp.errorText.contains("linkctl login mcp --acr-values 'urn:example:mfa' --max-age 0"),
            "\(stepUp.errorText)")
        #expect(requests().count == before + 1)
        #expect(w.daemon.isRunning)
    }
}

extension ProtectedResourceTests {
    @Test(
        "linkctl token --for URL --interactive with no account: one declared from the resource's metadata (a client registered), signed in, and the token printed; again, from memory"
    )
    func interactive() throws {
        let w = try World()
        let first = try w.desktop.signIn(
            "127.0.0.1", at: w.provider,
            command: [Paths.linkctl, "token", "--for", w.resource.url, "--interactive", "--no-browser"])
        #expect(first.status == 0 && first.errorText.contains("added account 127.0.0.1"), "\(first.errorText)")
        let token = first.output.trimmingCharacters(in: .newlines)
        #expect(!token.isEmpty)
        let listed = try w.desktop.linkctl("accounts", "--json")
        #expect(listed.text.contains("\"resource\":\"\(w.resource.url)\""), "\(listed.text)")
        let again = try w.desktop.linkctl("token", "--for", w.resource.url, "--interactive")
        #expect(again.status == 0 && again.text.trimmingCharacters(in: .newlines) == token, "\(again.errorText)")
    }
}

extension ProtectedResourceTests {
    @Test(
        "a Flatpak app and a resource: by URL alone it gets none of the person's accounts (UnknownAccount, no prompt); naming the person's account, the prompt names the resource and Allow once gives the token for it; its own declaration --for is its own account, a client registered for it",
        .enabled(if: FlatpakSandbox.unavailable == nil, "\(FlatpakSandbox.unavailable ?? "")"))
    func sandboxed() throws {
        let w = try World()
        let shell = try ShellNotifications(desktop: w.desktop)
        #expect(try w.desktop.linkctl("account", "add", "mcp", "--for", w.resource.url).status == 0)
        #expect(try w.desktop.signIn("mcp", at: w.provider).status == 0)
        let app = try FlatpakSandbox(desktop: w.desktop, appID: "org.example.Agent")
        let bus = try app.startProxy(talk: ["org.linkrouter.LinkRouter1"])
        func call(_ method: String, _ args: [String]) throws -> () -> (status: Int32, out: String, err: String) {
            try ConsentTests.inside(app, bus: bus, desktop: w.desktop, "org.linkrouter.LinkRouter1." + method, args)
        }
        let forURL = "{'for': <'\(w.resource.url)'>}"
        let nameless = try call("GetToken", ["", forURL])()
        #expect(nameless.status != 0 && nameless.err.contains("UnknownAccount"), "\(nameless.err)")
        #expect(shell.notifications().isEmpty, "no prompt for a call by URL alone")

        let named = try call("GetToken", ["mcp", forURL])
        let prompt = eventuallyValue(timeoutMilliseconds: 20_000) { shell.notifications().first }
        let body = try #require(prompt?.body)
        #expect(body.contains(w.resource.url) && body.contains("mcp"), "\(body)")
        try shell.click(try #require(prompt).id, "Allow once")
        let allowed = named()
        #expect(allowed.status == 0 && allowed.out.contains(w.resource.url), "\(allowed.err)")

        // Its own declaration for the resource is its own account, with a client registered for it.
        let declared = try call("AddAccount", ["mine", forURL])()
        #expect(declared.status == 0, "\(declared.err)")
        let listed = try w.desktop.linkctl("accounts", "--json")
        let all = (try? JSONSerialization.jsonObject(with: Data(listed.text.utf8)) as? [[String: Any]]) ?? []
        let mine = all.first { $0["name"] as? String == "mine" }
        #expect(
            mine?["owner"] as? String == "flatpak:org.example.Agent" && mine?["registered"] as? String == "managed"
                && mine?["resource"] as? String == w.resource.url, "\(listed.text)")
        #expect(w.daemon.isRunning)
    }
}

extension ProtectedResourceTests {
    @Test(
        "the helpers given a URL: git's (credential fill, then reject: the token given back, a fresh one next) and kubectl's exec plugin answer with the token --for finds; --for with --issuer refused (64); a URL with no metadata a clear error, nothing answered"
    )
    func helpers() throws {
        let w = try World()
        #expect(try w.desktop.linkctl("account", "add", "mcp", "--for", w.resource.url).status == 0)
        #expect(try w.desktop.signIn("mcp", at: w.provider).status == 0)
        let expected = try w.desktop.linkctl("token", "--for", w.resource.url).text.trimmingCharacters(
            in: .newlines)
        #expect(!expected.isEmpty)

        // git, through its own credential machinery: `fill` runs the helper's get, `reject` its erase.
        let helper = "!'\(Paths.linkctl)' credential git --for \(w.resource.url)"
        func git(_ operation: String, _ input: String) throws -> Subprocess.Outcome {
            try w.desktop.run([
                "sh", "-c",
                "printf '\(input)' | GIT_TERMINAL_PROMPT=0 git -c credential.helper= -c \"credential.helper=$0\" credential \(operation)",
                helper,
            ])
        }
        let filled = try git("fill", "protocol=https\\nhost=git.example.com\\n\\n")
        #expect(filled.status == 0 && filled.text.contains("password=\(expected)\n"), "\(filled.errorText)")
        let rejected = try git(
            "reject", "protocol=https\\nhost=git.example.com\\nusername=oauth2\\npassword=\(expected)\\n\\n")
        #expect(rejected.status == 0, "\(rejected.errorText)")
        let fresh = try w.desktop.linkctl("token", "--for", w.resource.url).text.trimmingCharacters(in: .newlines)
        #expect(!fresh.isEmpty && fresh != expected, "the refused token is not handed out again")

        // kubectl's exec plugin protocol, as kubectl runs it.
        let exec = try w.desktop.run([
            "env",
            "KUBERNETES_EXEC_INFO={\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\",\"spec\":{\"interactive\":false}}",
            Paths.linkctl, "credential", "kube", "--for", w.resource.url,
        ])
        #expect(exec.status == 0 && exec.text.contains("\"token\":\"\(fresh)\""), "\(exec.text) \(exec.errorText)")
        let used = try w.desktop.run([
            "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer " + fresh,
            w.resource.url,
        ])
        #expect(used.text == "200")

        let both = try w.desktop.linkctl(
            "credential", "kube", "--for", w.resource.url, "--issuer", w.provider.issuer)
        #expect(both.status == 64, "\(both.errorText)")
        let nowhere = try w.desktop.run([
            "env",
            "KUBERNETES_EXEC_INFO={\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\",\"spec\":{\"interactive\":false}}",
            Paths.linkctl, "credential", "kube", "--for", w.resource.url + "/elsewhere",
        ])
        #expect(
            nowhere.status != 0 && nowhere.text.isEmpty && nowhere.errorText.contains("DiscoveryFailed"),
            "\(nowhere.text) \(nowhere.errorText)")
        #expect(w.daemon.isRunning)
    }
}
