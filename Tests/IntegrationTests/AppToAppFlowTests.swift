import DBusKit
import Foundation
import LinkRouterAPI
import LinkRouterCore
import SystemKit
import Testing

/// The Vipps MobilePay app-to-app login, end to end: a provider whose
/// resume page works only with the cookie its authorize page set, two
/// browsers with their own cookie jars, the real xdg-open, and the test as
/// the "Vipps app" opening the app_callback_uri.
@Suite("App-to-app login (Vipps MobilePay)", .serialized)
struct AppToAppFlowTests {
    struct World {
        let h: Harness
        let provider: Provider
    }

    func world() throws -> World {
        let h = try Harness(browser: false)
        let provider = try Provider(desktop: h.desktop)
        try h.desktop.addCookieBrowser("browser-a.desktop", cafile: provider.cafile, makeDefault: true)
        try h.desktop.addCookieBrowser("browser-b.desktop", cafile: provider.cafile)
        return World(h: h, provider: provider)
    }

    func begin(_ w: World, browser: String? = "browser-b.desktop", extra: [(String, DBusValue)] = []) throws -> (
        path: String, url: String
    ) {
        var options: [(String, DBusValue)] = [
            ("authorization_endpoint", .string(w.provider.origin + "/authorize")), ("client_id", .string("merchant")),
            ("redirect_uri", .string("com.example.app:/callback")),
            ("app_callback_uri", .string("com.example.app:/app-callback")),
            ("scope", .string("openid")),
        ]
        if let browser { options.append(("browser", .string(browser))) }
        return try w.h.app.begin(options + extra)
    }

    @Test("the whole flow: authorize in browser B, the app step, resume in B (its cookie), the redirect completes")
    func fullFlow() throws {
        let w = try world()
        try w.h.app.subscribe("type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'")
        // Browser B is not the default: the daemon must remember which browser began the login.
        let (path, url) = try begin(w)
        #expect(url.contains("&requested_flow=app_to_app&app_callback_uri=com.example.app%3A%2Fapp-callback"))
        let login = try #require(w.provider.waitForLogin())
        #expect(login["user_agent"] as? String == "standin/browser-b")
        let resume = login["resume_uri"] as! String
        #expect(
            try w.h.app.call(
                "Get", [.string(API.sessionInterface.rawValue), .string("Browser")], path: path,
                interface: API.propertiesInterface.rawValue)[0].variantValue
                == .string("browser-b.desktop"))

        // The Vipps app returns to the merchant app.
        let appStep = try w.h.desktop.xdgOpen(
            "com.example.app:/app-callback?state=\(login["state"]!)&resume_uri=\(PercentEncoding.encode(resume))")
        #expect(appStep.status == 0, "\(appStep.errorText)")
        #expect(w.h.app.nextSignal(member: "PropertiesChanged")?.statusChange == "resumed")

        let result = try w.h.app.wait(path, timeoutMilliseconds: 15_000)
        #expect(result["code"] == login["code"] as? String)
        #expect(result["code_verifier"] != nil)
        #expect(w.h.app.nextSignal(member: "PropertiesChanged")?.statusChange == "completed")
        let resumes = w.provider.events("resume")
        #expect(resumes.count == 1)
        #expect(resumes.first?["user_agent"] as? String == "standin/browser-b")
        #expect(w.provider.events("resume-refused").isEmpty)
        // Browser A was never involved.
        #expect(!w.h.desktop.browserSteps().contains { $0["browser"] as? String == "browser-a" })
    }

    @Test("control: the same resume_uri in the other browser has no login, so the right browser is what made it work")
    func wrongBrowserFails() throws {
        let w = try world()
        let (path, _) = try begin(w)
        let login = try #require(w.provider.waitForLogin())
        let resume = login["resume_uri"] as! String
        // Browser A (the user's default) opens the resume page itself: no cookie, no code.
        let r = try w.h.desktop.run([
            "python3", Paths.fixtures + "/browser.py", "--name", "browser-a", "--jar",
            w.h.desktop.root + "/browser-a.cookies",
            "--log", w.h.desktop.root + "/browsers.jsonl", "--cafile", w.provider.cafile, resume,
        ])
        #expect(r.status == 0)
        #expect(w.provider.events("resume-refused").first?["user_agent"] as? String == "standin/browser-a")
        #expect(try w.h.app.status(path) == "pending")
    }

    @Test("resume=client: the owner gets a unicast ResumeRequested; nothing is opened; others do not see it")
    func resumeClient() throws {
        let w = try world()
        let watcher = try w.h.client()
        try watcher.subscribe("type='signal',interface='org.linkrouter.LinkRouter1.Session',member='ResumeRequested'")
        try w.h.app.subscribe("type='signal',interface='org.linkrouter.LinkRouter1.Session',member='ResumeRequested'")
        let (path, _) = try begin(w, extra: [("resume", .string("client"))])
        let login = try #require(w.provider.waitForLogin())
        let resume = login["resume_uri"] as! String
        let started = try w.h.app.counter("browsers_started")
        #expect(
            try w.h.app.route(
                "com.example.app:/app-callback?state=\(login["state"]!)&resume_uri=\(PercentEncoding.encode(resume))")
                == "resumed")
        let signal = try #require(w.h.app.nextSignal(member: "ResumeRequested"))
        #expect(signal.path == path && signal.destination == w.h.app.name)
        #expect(try signal.arguments() == [.string(resume)])
        // Whatever the daemon sent the watcher before this round trip is queued now: nothing.
        try watcher.barrier()
        #expect(watcher.queuedSignal(member: "ResumeRequested") == nil)
        #expect(try w.h.app.counter("browsers_started") == started, "no browser reopened resume_uri")
        #expect(try w.h.app.status(path) == "resumed")
    }

    @Test("resume=none and the app step without resume_uri: nothing opened, the session waits for its redirect (R4)")
    func resumeNone() throws {
        let w = try world()
        let (path, _) = try begin(w, extra: [("resume", .string("none"))])
        let login = try #require(w.provider.waitForLogin())
        let state = login["state"] as! String
        #expect(
            try w.h.app.route(
                "com.example.app:/app-callback?state=\(state)&resume_uri=\(PercentEncoding.encode(login["resume_uri"] as! String))"
            ) == "resumed")
        let (path2, _) = try begin(w)
        let login2 = try #require(
            eventuallyValue { w.provider.events("authorize").count == 2 ? w.provider.events("authorize").last : nil })
        let started = try w.h.app.counter("browsers_started")
        #expect(try w.h.app.route("com.example.app:/app-callback?state=\(login2["state"]!)") == "resumed")
        #expect(try w.h.app.counter("browsers_started") == started, "no browser reopened resume_uri")
        #expect(try w.h.app.status(path) == "resumed" && w.h.app.status(path2) == "resumed")
        #expect(try w.h.app.route("com.example.app:/callback?state=\(state)&code=C") == "completed")
        #expect(try w.h.app.wait(path)["code"] == "C")
    }

    @Test("the remembered flow: the redirect arrives with no app step and completes")
    func remembered() throws {
        let w = try world()
        let (path, _) = try begin(w)
        let login = try #require(w.provider.waitForLogin())
        _ = try w.h.desktop.xdgOpen("com.example.app:/callback?state=\(login["state"]!)&code=remembered&scope=openid")
        #expect(try w.h.app.wait(path)["code"] == "remembered")
    }

    @Test("an error on the app step fails the session; so does the document's state=…?error= form (R3)")
    func errors() throws {
        let w = try world()
        let (a, _) = try begin(w)
        let la = try #require(w.provider.waitForLogin())
        _ = try w.h.desktop.xdgOpen("com.example.app:/app-callback?state=\(la["state"]!)&error=access_denied")
        #expect(errorName { _ = try w.h.app.wait(a) } == errorPrefix + "AuthorizationFailed")
        #expect(try w.h.app.status(a) == "failed")

        let (b, _) = try begin(w)
        let lb = try #require(
            eventuallyValue { w.provider.events("authorize").count == 2 ? w.provider.events("authorize").last : nil })
        let quirk = try w.h.desktop.xdgOpen("com.example.app:/app-callback?state=\(lb["state"]!)?error=unknown_error")
        #expect(quirk.status == 0, "\(quirk.errorText)")
        let e = try #require(dbusError { _ = try w.h.app.wait(b) })
        #expect(e.name == errorPrefix + "AuthorizationFailed" && e.message.contains("unknown_error"))
        #expect(try w.h.app.status(b) == "failed")
    }

    @Test(
        "every open-redirect attempt is refused: nothing opened, the session untouched (R1)",
        arguments: [
            "https://evil.example/", "https://127.0.0.1.evil.example/x", "https://127.0.0.1@evil.example/x",
            "http://127.0.0.1/x",
            "javascript:alert(1)", "file:///etc/passwd", "https://127.0.0.1:1/vipps-login-idp/resume",
            "data:text/html,hi",
            "https://127.0.0.1/x%0D%0ALocation:%20evil",
        ])
    func openRedirects(_ target: String) throws {
        let w = try world()
        let (path, _) = try begin(w)
        let login = try #require(w.provider.waitForLogin())
        // The browser logs its authorize fetch after the provider answered it: wait for that line.
        #expect(eventually { w.h.desktop.browserSteps().count == 1 })
        let stepsBefore = w.h.desktop.browserSteps().count
        let started = try w.h.app.counter("browsers_started")
        let uri = "com.example.app:/app-callback?state=\(login["state"]!)&resume_uri=\(PercentEncoding.encode(target))"
        try w.h.expectRefusal(errorPrefix + "ResumeRefused") { _ = try w.h.app.route(uri) }
        // Through the real click path too: linkctl says why and exits 1, xdg-open fails.
        let r = try w.h.desktop.xdgOpen(uri)
        #expect(r.status != 0)
        #expect(r.errorText.contains("(ResumeRefused)"))
        #expect(try w.h.app.counter("browsers_started") == started)
        #expect(w.h.desktop.browserSteps().count == stepsBefore)
        #expect(try w.h.app.status(path) == "pending")
    }

    @Test("resume_uri is opened once; a second app step is refused as a replay (R2)")
    func resumeOnce() throws {
        let w = try world()
        let (path, _) = try begin(w, extra: [("resume", .string("client"))])
        let login = try #require(w.provider.waitForLogin())
        let uri =
            "com.example.app:/app-callback?state=\(login["state"]!)&resume_uri=\(PercentEncoding.encode(login["resume_uri"] as! String))"
        #expect(try w.h.app.route(uri) == "resumed")
        try w.h.expectRefusal(errorPrefix + "Replayed") { _ = try w.h.app.route(uri) }
        #expect(try w.h.app.status(path) == "resumed")
    }

    @Test("exact match still holds on the app callback: a trailing slash is named")
    func exactAppCallback() throws {
        let w = try world()
        _ = try begin(w)
        let login = try #require(w.provider.waitForLogin())
        let m = try w.h.expectRefusal(errorPrefix + "CallbackMismatch") {
            _ = try w.h.app.route("com.example.app:/app-callback/?state=\(login["state"]!)")
        }
        #expect(m.contains("app_callback_uri") && m.contains("trailing slash"))
    }

    @Test("linkctl sessions shows each step's status")
    func sessionsShowSteps() throws {
        let w = try world()
        let (path, _) = try begin(w, extra: [("resume", .string("none"))])
        let login = try #require(w.provider.waitForLogin())
        _ = try w.h.app.route("com.example.app:/app-callback?state=\(login["state"]!)")
        let id = String(path.split(separator: "/").last!)
        #expect(try w.h.desktop.linkctl("sessions").text.contains("\(id)  resumed"))
    }

    @Test("adopt mode: the backend's authorize URL with requested_flow=app_to_app, one https URI in both roles")
    func adopted() throws {
        let w = try world()
        let state = "RFiQdrl_lvJUpVmTRSKmsZRGLM0G1N1qh0WebZ1gDNk"
        let url =
            w.provider.origin
            + "/authorize?app_callback_uri=https%3A%2F%2Fexample.com%2Fapp-callback&requested_flow=app_to_app&scope=openid&response_type=code&redirect_uri=https%3A%2F%2Fexample.com%2Fapp-callback&code_challenge_method=S256&state=\(state)&nonce=n&client_id=c&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        let (path, shown) = try w.h.app.begin([
            ("authorize_url", .string(url)), ("browser", .string("browser-b.desktop")), ("resume", .string("client")),
        ])
        #expect(shown == url)
        let login = try #require(w.provider.waitForLogin())
        #expect(login["state"] as? String == state)
        #expect(
            try w.h.app.route(
                "https://example.com/app-callback?state=\(state)&resume_uri=\(PercentEncoding.encode(login["resume_uri"] as! String))"
            ) == "resumed")
        #expect(try w.h.app.route("https://example.com/app-callback?state=\(state)&code=adopted-code") == "completed")
        let result = try w.h.app.wait(path)
        #expect(result["code"] == "adopted-code" && result["code_verifier"] == nil && result["nonce"] == "n")
    }
}

extension DBusMessage {
    /// The new Status a PropertiesChanged signal carries.
    var statusChange: String? {
        guard let args = try? arguments(), args.count > 1 else { return nil }
        return args[1].stringKeyedEntries?.first { $0.0 == "Status" }?.1.variantValue?.stringValue
    }
}

func eventuallyValue<T>(timeoutMilliseconds: Int = 10_000, _ get: () -> T?) -> T? {
    var value: T?
    _ = eventually(timeoutMilliseconds: timeoutMilliseconds) {
        value = get()
        return value != nil
    }
    return value
}
