import FuzzDriver
import LinkRouterCore

/// libFuzzer target: every string a link or an option meets before a session
/// changes, with the router's invariants checked on each decision. A decision
/// that breaks one traps, which the fuzzer reports with its input.
enum CallbackFuzz {
    static let now: Int64 = 1_800_000_000

    struct World {
        var router = Router()
        var loopback: SessionID
        var vipps: Session

        /// The app-to-app session's login, whose resume rules `ResumePolicy` is fuzzed against.
        var vippsLogin: CodeLogin {
            guard case .code(let c) = vipps.login else { preconditionFailure("the Vipps fixture is a code login") }
            return c
        }
    }

    static let world: World = {
        var router = Router()
        func add(_ n: Int, _ redirect: String, app: String? = nil, issuer: String? = nil) -> Session {
            var r = SessionRequest()
            r.authorizationEndpoint = "https://auth.example.com/authorize"
            r.clientID = "fuzz"
            r.redirectURI = redirect
            r.appCallbackURI = app
            r.issuer = issuer
            var plan = try! SessionPlan.make(r, owner: Caller(name: ":1.\(n)"), limits: Limits())
            if plan.loopbackBinding != nil { plan.bind(port: 40000 + n) }
            let state = "S\(n)" + String(repeating: "x", count: 30)
            let s = plan.makeSession(
                secrets: SessionSecrets(
                    id: SessionID("f\(n)")!, state: state, nonce: "n", codeVerifier: "v\(n)", codeChallenge: "c"),
                claimTokenDigest: nil, browser: nil, now: now)
            router.apply([.insert(s)])
            return s
        }
        _ = add(1, "com.example.app:/callback")
        _ = add(2, "com.example.app:/cb?app=1&x=a%20b")
        let vipps = add(3, "https://example.com/redirect", app: "https://example.com/app-callback")
        _ = add(
            4, "https://example.com/app-callback", app: "https://example.com/app-callback", issuer: "https://as.example"
        )
        let loop = add(5, "http://127.0.0.1/callback")
        return World(router: router, loopback: loop.id, vipps: vipps)
    }()

    /// Apps that take deep links: one owns the callbacks' scheme, one claims
    /// https prefixes on the host of the https callbacks, a host is left alone.
    static let apps: AppDirectory = {
        let app = LinkApp(id: "com.example.App.desktop", delivery: .dbus)
        let web = LinkApp(id: "org.example.Web.desktop", delivery: .exec)
        let claims = ["https://example.com/", "https://example.com/app/", "https://left.example/x/"].map {
            try! HTTPSClaim.parse($0, app: web)
        }
        return AppDirectory(schemes: ["com.example.app": app], claims: claims, leftToBrowser: ["left.example"])
    }()

    static func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        for source in [RouteSource.link, .loopback(world.loopback)] {
            check(world.router.decide(text, source: source, now: now), text, source)
            check(world.router.decide(text, source: source, apps: apps, now: now), text, source)
        }
        _ = try? URIReference.strict(text, maxLength: 8192)
        _ = try? QueryParameters.parse(text)
        _ = try? PercentEncoding.decode(Substring(text), form: true)
        _ = try? CallbackURI.parse(text, role: "fuzz")
        if let resumed = try? ResumePolicy.check(text, for: world.vippsLogin, maxLength: 8192) {
            // Opened as given but for the scheme's spelling; on the endpoint's host (compared without case, RFC 3986
            // §3.2.2) and port.
            precondition(resumed == "https" + text.dropFirst(5), "resume changed the URL beyond the scheme's case")
            let uri = try? URIReference.strict(text, maxLength: 8192)
            precondition(
                uri?.host.map { $0.lowercased() } == "auth.example.com" && uri?.port == nil,
                "resume allowed off the endpoint's origin")
        }
        var adopt = SessionRequest()
        adopt.authorizeURL = text
        if let plan = try? SessionPlan.make(adopt, owner: Caller(name: ":1.9"), limits: Limits()) {
            precondition(plan.adoptedState.map(OAuthText.isAdoptableState) == true, "adopted a state outside the rules")
        }
        var build = SessionRequest()
        build.authorizationEndpoint = "https://as.example/a"
        build.clientID = "c"
        build.redirectURI = text
        if let plan = try? SessionPlan.make(build, owner: Caller(name: ":1.9"), limits: Limits()) {
            precondition(!plan.redirect.string.contains("#"), "a redirect URI with a fragment")
            let scheme = plan.redirect.uri.normalizedScheme
            precondition(scheme == "https" || scheme == "http" || scheme.contains("."), "a dotless custom scheme")
        }
    }

    /// What every decision must respect, whatever the input.
    static func check(_ d: RouteDecision, _ text: String, _ source: RouteSource) {
        switch d {
        case .complete(let s):
            // Only a strictly valid callback with exactly this state and a code, on the registered redirect URI.
            guard let uri = try? URIReference.strict(text, maxLength: 8192),
                let q = try? QueryParameters.parse(uri.query)
            else {
                preconditionFailure("completed from a URI the strict parser refuses")
            }
            precondition(
                q.all("state").count == 1 && q.all("state")[0].value == s.login.state, "completed with another state")
            precondition(
                q.all("code").count == 1 && s.result?.code == q.all("code")[0].value, "completed with another code")
            precondition(q.all("error").isEmpty, "completed despite an error")
            precondition(s.login.redirect?.mismatch(with: uri, query: q) == nil, "completed on another URI")
            if case .loopback(let id) = source {
                precondition(id == s.id, "a loopback listener completed another session")
            }
        case .fail(let s):
            precondition(s.status == .failed && s.result == nil, "a failure that carries a result")
        case .resume(let s, let url, _, _):
            precondition(url.hasPrefix("https://"), "resume to a non-https URL")
            precondition(s.login.appCallback != nil && source == .link, "resume without an app callback")
        case .acknowledge(let s):
            precondition(s.login.appCallback != nil && s.status == .resumed, "acknowledged without an app callback")
        case .passthrough(let url):
            precondition(url == text && source == .link, "passthrough changed the URL or came from a listener")
            let scheme = (try? URIReference.split(text))?.normalizedScheme
            precondition(scheme == "http" || scheme == "https", "passthrough of a non-web scheme")
            // A URL whose state names a session is never forwarded (threat model R5).
            let states = Set(world.router.all.compactMap(\.login.state))
            for value in lenientStates(text) {
                precondition(!states.contains(value), "forwarded a URL carrying a session's state")
            }
        case .returnTo(let s):
            // The way back only for a completed login that offered one, named by its own state on linkrouter's scheme.
            guard let uri = try? URIReference.strict(text, maxLength: 8192),
                let q = try? QueryParameters.parse(uri.query)
            else {
                preconditionFailure("a way back from a URI the strict parser refuses")
            }
            precondition(uri.normalizedScheme == ReturnLink.scheme, "a way back on another scheme")
            precondition(s.status == .completed && s.login.returnTo != nil, "a way back no login offered")
            precondition(
                q.all("state").count == 1 && q.all("state")[0].value == s.login.state, "a way back to another login")
        case .deliver(let url, let app, _):
            // Only a strictly valid link from Route, of the app's scheme or under its claim, that is no login link.
            precondition(url == text && source == .link, "delivered a changed URL, or from a listener")
            guard let uri = try? URIReference.strict(text, maxLength: 8192),
                let q = try? QueryParameters.parse(uri.query)
            else {
                preconditionFailure("delivered a URI the strict parser refuses")
            }
            let states = Set(world.router.all.compactMap(\.login.state))
            for value in lenientStates(text) {
                precondition(!states.contains(value), "delivered a session's callback to an app")
            }
            let hasResponse = q.pairs.contains { ["code", "error", "iss", "resume_uri"].contains($0.name) }
            precondition(
                !(q.pairs.contains { $0.name == "state" } && hasResponse), "delivered a login response to an app")
            if uri.normalizedScheme == "https" {
                precondition(
                    apps.claims.contains { $0.covers(uri) && $0.app == app },
                    "delivered a web link no claim of the app covers")
                precondition(
                    !apps.leftToBrowser.contains(uri.host?.lowercased() ?? ""),
                    "delivered a link of a host left to the browser")
            } else {
                precondition(
                    apps.schemes[uri.normalizedScheme] == app, "delivered to an app that does not own the scheme")
            }
        case .refuse:
            break
        }
    }
}

/// Every `state=` value in a URL's query (RFC 3986: before any `#`), decoded if it decodes, else raw.
func lenientStates(_ text: String) -> [String] {
    guard let query = (try? URIReference.split(text))?.query else { return [] }
    return query.split(separator: "&").compactMap { pair -> String? in
        guard let eq = pair.firstIndex(of: "=") else { return nil }
        let name = (try? PercentEncoding.decode(pair[..<eq], form: true)) ?? String(pair[..<eq])
        guard name == "state" else { return nil }
        let raw = pair[pair.index(after: eq)...]
        return (try? PercentEncoding.decode(raw, form: true)) ?? String(raw)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    CallbackFuzz.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}

@main
struct Main {
    static func main() { FuzzDriver.main("callback-fuzz") { data, size in fuzzerTestOneInput(data, size) } }
}
