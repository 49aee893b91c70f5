import Foundation
import Glibc
import SecretServiceTesting
import SystemKit
import Testing

/// A step-up sign-in (RFC 9470; issue 48): a token asked with `acr_values`
/// or `max_age` comes only from a sign-in made that way and that lately, as
/// its verified ID token said; a sign-in asking for them sends them to the
/// provider and checks the new ID token's `acr` and `auth_time` before
/// anything is kept. At django-oauth-toolkit 3.4.1, configured to say how
/// alice signed in (`acr`: urn:example:password, or urn:example:mfa once she
/// enrolled a second factor; Fixtures/dot_provider.py), and at Glewlwyd
/// 2.7.5, whose ID tokens say `auth_time` 0 (so no `max_age` is met there).
@Suite(
    "A step-up sign-in (RFC 9470): acr_values and max_age asked and checked",
    .enabled(if: DjangoOAuthToolkit.unavailable == nil, "\(DjangoOAuthToolkit.unavailable ?? "")"))
struct StepUpTests {
    static let mfa = "urn:example:mfa"
    static let password = "urn:example:password"

    /// `GetToken` over D-Bus, as an app asks it: the outcome of gdbus.
    static func getToken(_ desktop: TestDesktop, _ name: String, _ options: String) throws -> Subprocess.Outcome {
        try desktop.run([
            "gdbus", "call", "--session", "--dest", "org.linkrouter.LinkRouter1", "--object-path",
            "/org/linkrouter/LinkRouter1", "--method", "org.linkrouter.LinkRouter1.GetToken", name, options,
        ])
    }

    @Test(
        "django-oauth-toolkit: a token asked for the class the sign-in was made with; another class StepUpRequired (exit 4, over D-Bus too) naming the sign-in that asks for it; that sign-in sends acr_values and is refused when the provider signs alice in with a password (the account's tokens as they were); after she enrolls a second factor it is kept, and checked again after a restart"
    )
    func classes() throws {
        let w = try SecondProviderTests.World()
        #expect(try w.add("dot", redirect: SecondProviderTests.loopback).status == 0)
        #expect(try w.desktop.signIn("dot", at: w.provider).status == 0)
        let first = try w.token("dot")
        #expect(!first.isEmpty)

        // The class alice signed in with: the account's own token.
        let met = try w.desktop.linkctl("token", "dot", "--acr-values", Self.password, "--max-age", "3600")
        #expect(met.status == 0 && met.text.trimmingCharacters(in: .newlines) == first, "\(met.errorText)")
        // Another class: refused, with the sign-in that asks for it; nothing refreshed for it.
        let unmet = try w.desktop.linkctl("token", "dot", "--acr-values", Self.mfa)
        #expect(unmet.status == 4, "\(unmet.text) \(unmet.errorText)")
        #expect(
            unmet.errorText.contains("not one of \(Self.mfa)")
                && unmet.errorText.contains("linkctl login dot --acr-values '\(Self.mfa)'"), "\(unmet.errorText)")
        let bus = try Self.getToken(w.desktop, "dot", "{'acr_values': <'\(Self.mfa)'>}")
        #expect(
            bus.status != 0 && bus.errorText.contains("org.linkrouter.LinkRouter1.Error.StepUpRequired"),
            "\(bus.text) \(bus.errorText)")
        // A class list that is no list: the caller's mistake.
        let bad = try Self.getToken(w.desktop, "dot", "{'acr_values': <'urn:example:mfa\\t'>}")
        #expect(bad.errorText.contains("Error.InvalidArgument"), "\(bad.errorText)")

        // The sign-in asking for it: the provider is asked (its request log shows acr_values), but it signs
        // alice in with her password: refused, and the account keeps its tokens.
        let refused = try w.desktop.signIn(
            "dot", at: w.provider,
            command: [Paths.linkctl, "login", "dot", "--no-browser", "--timeout", "60000", "--acr-values", Self.mfa])
        #expect(refused.status == 2, "\(refused.errorText)")
        #expect(
            refused.errorText.contains("was made with the authentication class \"\(Self.password)\", not one of"),
            "\(refused.errorText)")
        let asked = (try? FileSystem.readText(w.desktop.root + "/dot.err")) ?? ""
        #expect(asked.contains("acr_values=urn%3Aexample%3Amfa"), "\(asked.suffix(1200))")
        #expect(try w.token("dot") == first)

        // She enrolls a second factor: the same sign-in is kept, and its token is for the class asked.
        try w.provider.enrollSecondFactor()
        let stepped = try w.desktop.signIn(
            "dot", at: w.provider,
            command: [
                Paths.linkctl, "login", "dot", "--no-browser", "--timeout", "60000", "--acr-values",
                "\(Self.mfa) \(Self.password)", "--max-age", "600",
            ])
        #expect(stepped.status == 0, "\(stepped.errorText)")
        let strong = try w.desktop.linkctl("token", "dot", "--acr-values", Self.mfa)
        #expect(strong.status == 0, "\(strong.errorText)")
        let token = strong.text.trimmingCharacters(in: .newlines)
        #expect(!token.isEmpty && token != first)

        // A new daemon reads the sign-in back from the keyring, with how it was made.
        _ = w.daemon.stop()
        w.daemon = try DaemonProcess(desktop: w.desktop)
        let weak = try w.desktop.linkctl("token", "dot", "--acr-values", Self.password)
        #expect(weak.status == 4 && weak.errorText.contains("\"\(Self.mfa)\", not one of"), "\(weak.errorText)")
        let again = try w.desktop.linkctl("token", "dot", "--acr-values", Self.mfa)
        #expect(again.status == 0 && again.text.trimmingCharacters(in: .newlines) == token, "\(again.errorText)")
        #expect(w.daemon.isRunning)
    }

    @Test(
        "linkctl fetch at a resource that wants a second factor: without --interactive the sign-in that asks for it is named and the answer is as given; with it, alice signs in again, the ID token says urn:example:mfa, and the request is sent again with the new token (taken)"
    )
    func fetch() throws {
        let w = try SecondProviderTests.World()
        let resource = try ProtectedResourceStandIn(desktop: w.desktop, provider: w.provider)
        #expect(try w.add("dot", redirect: SecondProviderTests.loopback).status == 0)
        #expect(try w.desktop.signIn("dot", at: w.provider).status == 0)
        try resource.challenge("step-up-first")
        func requests() -> [String] { resource.log().filter { !$0.hasPrefix("metadata") } }

        let said = try w.desktop.linkctl("fetch", "dot", resource.url, "--fail")
        #expect(said.status == 22, "\(said.text) \(said.errorText)")
        #expect(
            said.errorText.contains("wants a sign-in with acr_values=\(Self.mfa)")
                && said.errorText.contains("linkctl login dot --acr-values '\(Self.mfa)'"), "\(said.errorText)")
        #expect(requests() == ["401 step-up-first"], "\(requests())")

        try w.provider.enrollSecondFactor()
        let fetched = try w.desktop.signIn(
            "dot", at: w.provider,
            command: [Paths.linkctl, "fetch", "dot", resource.url, "--interactive", "--no-browser", "--fail"])
        #expect(fetched.status == 0, "\(fetched.errorText)")
        #expect(fetched.output.contains("\"ok\": true"), "\(fetched.output)")
        #expect(fetched.errorText.contains("sent again with a token of a sign-in with"), "\(fetched.errorText)")
        #expect(requests().count == 3 && requests().last?.hasPrefix("200 ") == true, "\(requests())")
        #expect(w.daemon.isRunning)
    }

    @Test(
        "Glewlwyd 2.7.5 says auth_time 0: a token asked with max_age is StepUpRequired saying how long ago; a sign-in asking for max_age is refused (IDTokenRejected) and the account keeps its tokens; acr_values where the ID token names no class refused alike"
    )
    func glewlwydMaxAge() throws {
        let desktop = try TestDesktop()
        let bus = try PrivateBus(desktop: desktop)
        let keyring = try GnomeKeyring(desktop: desktop)
        let provider = try Glewlwyd(desktop: desktop, redirectURIs: [AccountTests.redirect])
        let daemon = try DaemonProcess(desktop: desktop)
        _ = (bus, keyring)
        let added = try desktop.linkctl(
            "account", "add", "work", "--issuer", provider.issuer, "--client-id", provider.clientID,
            "--redirect-uri", AccountTests.redirect)
        #expect(added.status == 0, "\(added.errorText)")
        #expect(try desktop.signIn("work", at: provider).status == 0)
        let first = try desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)
        #expect(!first.isEmpty)

        let old = try desktop.linkctl("token", "work", "--max-age", "600")
        #expect(
            old.status == 4 && old.errorText.contains("s ago, more than max_age 600 s")
                && old.errorText.contains("linkctl login work --max-age 600"), "\(old.errorText)")
        let noClass = try desktop.linkctl("token", "work", "--acr-values", Self.mfa)
        #expect(
            noClass.status == 4 && noClass.errorText.contains("names no authentication class"), "\(noClass.errorText)")

        let refused = try desktop.signIn(
            "work", at: provider,
            command: [Paths.linkctl, "login", "work", "--no-browser", "--timeout", "60000", "--max-age", "600"])
        #expect(
            refused.status == 2 && refused.errorText.contains("more than max_age 600 s"), "\(refused.errorText)")
        #expect(try desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines) == first)
        #expect(daemon.isRunning)
    }
}

extension StepUpTests {
    @Test(
        "a device login asking for a step-up (RFC 8628 at Glewlwyd, whose device-grant ID token says auth_time as issued, but no acr): max_age 600 met, the tokens kept and handed out for it; asked for a class, Glewlwyd refuses the grant (access_denied, exit 2), the account's sign-in as it was, and the same login without it goes through"
    )
    func deviceLogin() throws {
        let w = try AccountTests.World(deviceSeconds: 600)
        #expect(try w.add("work").status == 0)
        func signIn(_ asking: [String]) throws -> (status: Int32, errorText: String) {
            // Each login's code is read from its own output, not an earlier one's.
            for f in ["/device.out", "/device.err"] { try? FileSystem.remove(w.desktop.root + f) }
            let login = try DeviceLoginEndToEndTests.start(
                w.desktop, ["login", "work", "--device", "--timeout", "60000"] + asking)
            let shown = try #require(DeviceLoginEndToEndTests.shown(login), "no code shown: \(login.errorText)")
            let approval = try DeviceLoginEndToEndTests.approve(
                w.desktop, at: w.provider, page: shown.page, code: shown.code)
            #expect(approval.status == 0, "\(approval.errorText)")
            return (Subprocess.wait(login.pid, timeoutMilliseconds: 60_000), login.errorText)
        }
        let recent = try signIn(["--max-age", "600"])
        #expect(recent.status == 0, "\(recent.errorText)")
        let token = try w.desktop.linkctl("token", "work", "--max-age", "600")
        #expect(token.status == 0 && !token.text.isEmpty, "\(token.errorText)")

        // Glewlwyd offers no class: asked for one, it refuses the grant at the poll (access_denied).
        let classed = try signIn(["--acr-values", Self.mfa])
        #expect(
            classed.status == 2 && classed.errorText.contains("access_denied")
                && classed.errorText.contains("nothing was stored"), "\(classed.errorText)")
        let after = try w.desktop.linkctl("token", "work", "--max-age", "600")
        #expect(after.status == 0 && after.text == token.text, "the earlier sign-in kept: \(after.errorText)")
        // The same login without the class goes through: the refusal was the class's.
        let plain = try signIn([])
        #expect(plain.status == 0, "\(plain.errorText)")
        #expect(w.daemon.isRunning)
    }
}
