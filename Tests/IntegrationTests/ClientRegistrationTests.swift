import Foundation
import Glibc
import SecretServiceTesting
import SystemKit
import Testing

/// A client registered by linkrouter itself (issue 48): `linkctl account add
/// NAME --issuer URL` with no `--client-id`, at a real Glewlwyd whose
/// registration endpoint is open (RFC 7591) and manages what it registered
/// (RFC 7592), through a proxy of the tests' own that corrects Glewlwyd's two
/// departures from RFC 7591 and its status codes (`Fixtures/tamper_provider.py`),
/// so linkrouter is tested against what the RFCs say. The client signs in,
/// its token works at the provider, and removing the account deletes it
/// there; every refusal leaves nothing declared, nothing in the keyring, and
/// the daemon up.
@Suite("Client registration: a client linkrouter registers itself (RFC 7591, 7592)")
struct ClientRegistrationTests {
    final class World {
        let desktop: TestDesktop
        let bus: PrivateBus
        let keyring: GnomeKeyring
        let proxy: TamperProxy
        let provider: Glewlwyd
        let daemon: DaemonProcess

        /// `registrationToken`: the provider registers only with an initial access token.
        init(registrationToken: Bool = false) throws {
            desktop = try TestDesktop()
            bus = try PrivateBus(desktop: desktop)
            keyring = try GnomeKeyring(desktop: desktop)
            proxy = try TamperProxy(desktop: desktop)
            provider = try Glewlwyd(
                desktop: desktop, redirectURIs: ["com.example.app:/callback"], publicOrigin: proxy.origin,
                registration: !registrationToken, registrationToken: registrationToken)
            try proxy.connect(upstream: try #require(provider.directOrigin))
            daemon = try DaemonProcess(desktop: desktop)
        }

        /// `linkctl account add NAME --issuer URL EXTRA…`, with `stdin` piped in when given.
        func add(_ name: String, _ extra: [String] = [], stdin: String? = nil) throws -> Subprocess.Outcome {
            let args = ["account", "add", name, "--issuer", provider.issuer] + extra
            guard let stdin else { return try desktop.linkctl(args) }
            return try desktop.run(["/bin/sh", "-c", "printf '%s' \"$0\" | \"$@\"", stdin, Paths.linkctl] + args)
        }

        func account(_ name: String) throws -> [String: Any]? {
            let r = try desktop.linkctl("accounts", "--json")
            let all = (try? JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [[String: Any]]) ?? []
            return all.first { $0["name"] as? String == name }
        }

        var accountsDirectory: String { desktop.configHome + "/linkrouter/accounts" }

        /// The registrations the proxy passed to the provider or answered itself.
        func registrations() -> [[String: Any]] {
            proxy.requests().filter {
                $0["method"] as? String == "POST" && ($0["path"] as? String)?.hasSuffix("/register") == true
            }
        }

        /// Nothing declared, nothing kept: no file, no keyring item of either kind, and the daemon still answers.
        func nothingKept(_ name: String) throws {
            #expect(FileSystem.status(accountsDirectory + "/\(name).conf") == nil)
            #expect(try keyring.items(account: name) == (0, 0))
            #expect(try keyring.items(account: name + "#registration") == (0, 0))
            #expect(try account(name) == nil)
            #expect(try desktop.linkctl("status").status == 0, "the daemon is up")
        }
    }

    @Test(
        "registered with no client id: a public native client with a loopback redirect on a fixed port, its id and name in accounts --json, its management in the keyring; signed in, its token good at the provider; removed, the client is deleted there"
    )
    func registerSignInRemove() throws {
        let w = try World()
        let added = try w.add("work", ["--scope", "openid email"])
        #expect(added.status == 0, "\(added.errorText) \(w.daemon.log.suffix(600))")
        #expect(added.errorText.contains("Registered client"), "\(added.errorText)")

        // What was sent: the RFC's metadata, as the proxy saw it before correcting Glewlwyd's departures.
        let sent = try #require(w.registrations().first?["registration"] as? [String: Any])
        #expect(sent["token_endpoint_auth_method"] as? String == "none")
        #expect(sent["application_type"] as? String == "native")
        #expect(sent["grant_types"] as? [String] == ["authorization_code", "refresh_token"])
        let redirects = try #require(sent["redirect_uris"] as? [String])
        #expect(
            redirects.count == 1 && redirects[0].hasPrefix("http://127.0.0.1:") && redirects[0].hasSuffix("/callback"))
        #expect((sent["client_name"] as? String)?.hasPrefix("linkrouter") == true, "\(sent)")

        // What was kept: the client's id and name, the exact redirect, managed; the token for it in the keyring only.
        let listed = try #require(try w.account("work"))
        let clientID = try #require(listed["client_id"] as? String)
        #expect(
            listed["registered"] as? String == "managed"
                && listed["client_name"] as? String == sent["client_name"] as? String)
        let file = try FileSystem.readText(w.accountsDirectory + "/work.conf")
        #expect(file.contains("client_id=\(clientID)") && file.contains("redirect_uri=\(redirects[0])"), "\(file)")
        #expect(!file.contains("registration_access_token") && !file.contains("registration_token"))
        #expect(try w.keyring.items(account: "work#registration") == (1, 0))
        // The provider made a public client with that redirect, as asked.
        let made = try w.provider.client(w.desktop, clientID)
        #expect(made["confidential"] as? Bool == false && made["enabled"] as? Bool == true, "\(made)")

        // The first sign-in, through the registered loopback redirect, and a token the provider takes.
        let login = try w.desktop.signIn("work", at: w.provider)
        #expect(login.status == 0, "\(login.errorText) \(w.daemon.log.suffix(800))")
        let token = try w.desktop.linkctl("token", "work")
        #expect(token.status == 0, "\(token.errorText)")
        let userinfo = try w.desktop.run([
            "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H",
            "Authorization: Bearer " + token.text.trimmingCharacters(in: .newlines),
            w.provider.issuer + "/userinfo",
        ])
        #expect(userinfo.text == "200", "userinfo with the registered client's token: \(userinfo.text)")

        // Declared again the same way (an app at each start): nothing changes, no second registration.
        #expect(try w.add("work", ["--scope", "openid email", "--replace"]).status == 0)
        #expect(w.registrations().count == 1)
        #expect(try w.account("work")?["client_id"] as? String == clientID)

        // Removed: revoked, then the client deleted at the provider (RFC 7592), its management forgotten.
        let removed = try w.desktop.linkctl("account", "remove", "work")
        #expect(removed.status == 0 && !removed.errorText.contains("warning"), "\(removed.errorText)")
        #expect(w.proxy.requests().contains { $0["method"] as? String == "DELETE" && $0["status"] as? Int == 204 })
        #expect(try w.provider.client(w.desktop, clientID)["enabled"] as? Bool == false)
        try w.nothingKept("work")
    }

    @Test(
        "refused, malformed, or not what was asked: a clear RegistrationFailed each, nothing declared or kept; a confidential client made anyway is deleted again; --registration-token only from stdin"
    )
    func refusals() throws {
        let w = try World()
        try w.proxy.set("registration-refused")
        let refused = try w.add("work")
        #expect(
            refused.status != 0 && refused.errorText.contains("RegistrationFailed")
                && refused.errorText.contains("invalid_client_metadata"), "\(refused.errorText)")
        try w.nothingKept("work")

        try w.proxy.set("registration-no-client-id")
        let malformed = try w.add("work")
        #expect(malformed.status != 0 && malformed.errorText.contains("without a client_id"), "\(malformed.errorText)")
        try w.nothingKept("work")

        try w.proxy.set("registration-confidential")
        let confidential = try w.add("work")
        #expect(
            confidential.status != 0 && confidential.errorText.contains("a confidential client"),
            "\(confidential.errorText)")
        try w.nothingKept("work")
        // The client the provider made anyway was deleted again with the credentials its answer gave.
        let made = try #require(
            w.proxy.requests().last { ($0["path"] as? String)?.hasSuffix("/register") == true }?["answer"] as? String)
        let id = try #require(
            (try? JSONSerialization.jsonObject(with: Data(made.utf8)) as? [String: Any])?["client_id"] as? String)
        #expect(try w.provider.client(w.desktop, id)["enabled"] as? Bool == false)

        try w.proxy.set("honest")
        let onArgv = try w.add("work", ["--registration-token", "secret-on-argv"])
        #expect(onArgv.status == 64 && onArgv.errorText.contains("stdin"), "\(onArgv.errorText)")
        // With client_id, there is nothing to spend a registration token on.
        let both = try w.desktop.linkctl(
            "account", "add", "work", "--issuer", w.provider.issuer, "--client-id", "x", "--registration-token", "-")
        #expect(both.status != 0 && both.errorText.contains("leave out client_id"), "\(both.errorText)")
        // An open endpoint takes a token it does not need: registered.
        let withToken = try w.add("work", ["--registration-token", "-"], stdin: "an-initial-access-token\n")
        #expect(withToken.status == 0, "\(withToken.errorText)")
        #expect(try w.account("work")?["registered"] as? String == "managed")
    }
}

extension ClientRegistrationTests {
    @Test(
        "a provider that registers only with an initial access token: without one, refused naming --registration-token -; with one on stdin, registered; the same one again (spent), refused as such; nothing kept by the refusals"
    )
    func initialAccessToken() throws {
        let w = try World(registrationToken: true)
        let without = try w.add("work")
        #expect(
            without.status != 0 && without.errorText.contains("RegistrationFailed")
                && without.errorText.contains("--registration-token -"), "\(without.errorText)")
        try w.nothingKept("work")
        let token = try w.provider.initialAccessToken(w.desktop)
        let with = try w.add("work", ["--registration-token", "-"], stdin: token + "\n")
        #expect(with.status == 0 && with.errorText.contains("Registered client"), "\(with.errorText)")
        // The token was sent as a Bearer token, never written down.
        #expect(try !FileSystem.readText(w.accountsDirectory + "/work.conf").contains(token))
        let spent = try w.add("other", ["--registration-token", "-"], stdin: token + "\n")
        #expect(
            spent.status != 0 && spent.errorText.contains("refused the initial access token"), "\(spent.errorText)")
        try w.nothingKept("other")
    }
}

extension ClientRegistrationTests {
    @Test(
        "the registered loopback port taken by another program at sign-in: ListenerFailed naming it, no browser opened, the account as it was, the daemon up"
    )
    func portTaken() throws {
        let w = try World()
        #expect(try w.add("work").status == 0)
        // The port the client was registered with, from the account's file.
        let file = try FileSystem.readText(w.accountsDirectory + "/work.conf")
        let redirect = try #require(
            file.split(separator: "\n").first { $0.hasPrefix("redirect_uri=") }?.dropFirst("redirect_uri=".count))
        let port = try #require(redirect.split(separator: ":").last?.split(separator: "/").first.map(String.init))
        // Another program listens there first.
        let ready = w.desktop.root + "/squatter.ready"
        let squatter = try Subprocess.spawn(
            [
                "/usr/bin/python3", "-c",
                "import socket,sys,time; s=socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(); open(sys.argv[2],'w').close(); time.sleep(60)",
                port, ready,
            ], environment: w.desktop.environment, stdout: .null, stderr: .null)
        defer { Subprocess.stop(squatter, name: "the port's squatter") }
        #expect(eventually(timeoutMilliseconds: 10_000) { FileSystem.status(ready) != nil })
        let login = try w.desktop.linkctl(["login", "work", "--no-browser", "--timeout", "5000"])
        #expect(login.status != 0 && login.errorText.contains("ListenerFailed"), "\(login.errorText)")
        #expect(try w.account("work")?["registered"] as? String == "managed")
        #expect(w.daemon.isRunning)
    }
}
