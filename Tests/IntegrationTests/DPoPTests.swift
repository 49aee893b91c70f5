import DBusKit
import Foundation
import Glibc
import JOSE
import LinkRouterCore
import OpenSSLKit
import SystemKit
import Testing

/// DPoP (RFC 9449) against a real provider: Glewlwyd binds an account's
/// tokens to the daemon's key, a resource server of the test's (jwcrypto,
/// another implementation) takes them only with the daemon's proofs, and a
/// copied token is worth nothing with another key. The proxy in front of
/// Glewlwyd logs every proof the daemon sent.
@Suite("DPoP: tokens bound to a key only the daemon holds")
struct DPoPTests {
    /// The token endpoint's requests the proxy passed, in order.
    static func tokenRequests(_ proxy: TamperProxy) -> [[String: Any]] {
        proxy.requests().filter {
            ($0["path"] as? String)?.hasSuffix("/token") == true && $0["method"] as? String == "POST"
        }
    }

    @Test(
        "an account at a provider that lists DPoP: the code bound by dpop_jkt, the token by the proof, the resource takes the daemon's proof only; a replay and another key are refused; the key survives a restart and proves the refresh; used as a bearer token, it warns",
        .enabled(
            if: DjangoOAuthToolkit.unavailable == nil,
            "the resource server checks proofs with jwcrypto, from the django-oauth-toolkit venv: \(DjangoOAuthToolkit.unavailable ?? "")"
        )
    )
    func boundEndToEnd() throws {
        let w = try AccountTests.World(accessTokenSeconds: 600, counted: true, dpop: "allowed")
        let proxy = try #require(w.proxy)
        let resource = try DPoPResource(desktop: w.desktop, jwks: w.provider.jwksURI)
        #expect(try w.add("work").status == 0)
        let login = try w.login("work")
        #expect(login.status == 0, "\(login.errorText)\nthe token endpoint saw: \(Self.tokenRequests(proxy))")
        let exchange = try #require(Self.tokenRequests(proxy).last)
        let proof = try #require(exchange["dpop"] as? [String: Any], "\(exchange)")
        let jkt = try #require(exchange["dpop_jkt"] as? String)
        #expect(
            proof["htm"] as? String == "POST" && proof["htu"] as? String == w.provider.tokenEndpoint
                && exchange["status"] as? Int == 200, "\(exchange)")
        // The authorize URL named the same key (dpop_jkt binds the code, RFC 9449 §10).
        let url = try #require(
            login.errorText.split(separator: "\n").first { $0.hasPrefix("  http") }.map {
                $0.trimmingCharacters(in: .whitespaces)
            })
        #expect(URLComponents(string: url)?.queryItems?.first { $0.name == "dpop_jkt" }?.value == jkt, "\(url)")

        let token = try w.desktop.linkctl("token", "work", "--json")
        #expect(
            token.errorText.contains("bound to the daemon's DPoP key"),
            "a bound token used as a bearer token warns: \(token.errorText)")
        let answer = try #require(
            try JSONSerialization.jsonObject(with: Data(token.text.utf8)) as? [String: Any], "\(token.errorText)")
        #expect(answer["token_type"] as? String == "DPoP", "\(answer)")
        let access = try #require(answer["token"] as? String)
        #expect((JWTParts.payload(access)["cnf"] as? [String: Any])?["jkt"] as? String == jkt)

        // The resource takes the daemon's proof for this method and URL.
        let target = resource.origin + "/api/things?page=2"
        let headers = try w.desktop.linkctl("token", "work", "--dpop", "GET", target)
        #expect(headers.status == 0, "\(headers.errorText)")
        let lines = headers.text.split(separator: "\n").map(String.init)
        #expect(
            lines.count == 2 && lines[0] == "Authorization: DPoP " + access && lines[1].hasPrefix("DPoP: "),
            "\(headers.text)")
        let ok = try resource.call(w.desktop, "GET", target, headers: lines)
        #expect(ok.status == 200 && ok.body["jkt"] as? String == jkt, "\(ok)")
        // The same proof again: refused (its jti was seen).
        let replay = try resource.call(w.desktop, "GET", target, headers: lines)
        #expect(replay.status == 401 && (replay.body["reason"] as? String ?? "").contains("replayed"), "\(replay)")
        // A proof for another method is refused too.
        let otherMethod = try resource.call(
            w.desktop, "POST", target,
            headers: try w.desktop.linkctl("token", "work", "--dpop", "GET", target).text.split(separator: "\n").map(
                String.init))
        #expect(
            otherMethod.status == 401 && (otherMethod.body["reason"] as? String ?? "").contains("proof is for GET"),
            "\(otherMethod)")
        // The token copied, presented with a thief's own key and a well-made proof: refused.
        let thief = try SigningKey.generate()
        let stolen = try DPoPProof.make(
            key: thief, method: "GET", url: target, issuedAt: Int64(Date().timeIntervalSince1970), accessToken: access)
        let refused = try resource.call(
            w.desktop, "GET", target, headers: ["Authorization: DPoP " + access, "DPoP: " + stolen])
        #expect(
            refused.status == 401 && (refused.body["reason"] as? String ?? "").contains("bound to another key"),
            "\(refused)")

        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "work")) ?? (0, 0) == (1, 0) })
        // A restart: the key comes back from the keyring with the tokens and proves the refresh (a token of 600 s has
        // not the 3600 asked).
        try w.restart()
        let refreshed = try w.desktop.linkctl("token", "work", "--min-valid", "3600", "--json")
        #expect(refreshed.status == 0, "\(refreshed.errorText)")
        let refresh = try #require(Self.tokenRequests(proxy).last)
        #expect(
            refresh["grant_type"] as? String == "refresh_token" && refresh["status"] as? Int == 200
                && refresh["dpop_jkt"] as? String == jkt, "\(refresh)")
        let again = try #require(try JSONSerialization.jsonObject(with: Data(refreshed.text.utf8)) as? [String: Any])
        let renewed = try #require(again["token"] as? String)
        #expect(renewed != access && (JWTParts.payload(renewed)["cnf"] as? [String: Any])?["jkt"] as? String == jkt)
        let after = try w.desktop.linkctl("token", "work", "--dpop", "POST", resource.origin + "/api/things")
        #expect(
            try resource.call(
                w.desktop, "POST", resource.origin + "/api/things",
                headers: after.text.split(separator: "\n").map(String.init)
            ).status == 200)
        #expect(w.daemon.isRunning)
    }

    /// `gdbus call` on the manager, as a client with no linkctl would: the output, or the error's name and message.
    static func call(_ desktop: TestDesktop, _ method: String, _ args: [String]) throws -> Subprocess.Outcome {
        try desktop.run(
            [
                "gdbus", "call", "--session", "--dest", "org.linkrouter.LinkRouter1", "--object-path",
                "/org/linkrouter/LinkRouter1", "--method", "org.linkrouter.LinkRouter1." + method,
            ]
                + args)
    }

    @Test(
        "a provider that wants a nonce (Glewlwyd's oauth-dpop-nonce-mandatory): each token request answered use_dpop_nonce once, then taken with the nonce; a resource server's nonce goes into linkctl's proof with --nonce",
        .enabled(
            if: DjangoOAuthToolkit.unavailable == nil,
            "the resource server checks proofs with jwcrypto, from the django-oauth-toolkit venv: \(DjangoOAuthToolkit.unavailable ?? "")"
        )
    )
    func nonces() throws {
        let w = try AccountTests.World(accessTokenSeconds: 600, counted: true, dpop: "nonce")
        let proxy = try #require(w.proxy)
        let resource = try DPoPResource(desktop: w.desktop, requireNonce: true)
        #expect(try w.add("work").status == 0)
        let login = try w.login("work")
        #expect(login.status == 0, "\(login.errorText)")
        let exchange = Self.tokenRequests(proxy)
        #expect(exchange.map { $0["status"] as? Int } == [400, 200], "\(exchange)")
        #expect(
            exchange.first?["dpop"].flatMap { ($0 as? [String: Any])?["nonce"] } == nil
                && (exchange.last?["dpop"] as? [String: Any])?["nonce"] is String, "\(exchange)")
        // Once the new tokens are in the keyring (a GetToken during that write gets them as they are), a refresh: the
        // nonce kept from the exchange is used.
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "work")) ?? (0, 0) == (1, 0) })
        let refreshed = try w.desktop.linkctl("token", "work", "--min-valid", "3600")
        #expect(refreshed.status == 0, "\(refreshed.errorText)")
        let refresh = Self.tokenRequests(proxy).dropFirst(2)
        #expect(
            refresh.count == 1 && refresh.first?["status"] as? Int == 200
                && (refresh.first?["dpop"] as? [String: Any])?["nonce"] is String, "\(refresh)")

        let target = resource.origin + "/api/things"
        let first = try w.desktop.linkctl("token", "work", "--dpop", "GET", target)
        let asked = try resource.call(
            w.desktop, "GET", target, headers: first.text.split(separator: "\n").map(String.init))
        #expect(
            asked.status == 401 && asked.body["error"] as? String == "use_dpop_nonce" && asked.nonce != nil, "\(asked)")
        let second = try w.desktop.linkctl(
            "token", "work", "--dpop", "GET", target, "--nonce", try #require(asked.nonce))
        let ok = try resource.call(
            w.desktop, "GET", target, headers: second.text.split(separator: "\n").map(String.init))
        #expect(ok.status == 200, "\(ok)")
    }

    @Test(
        "hostile token endpoints: use_dpop_nonce forever gives up after three requests with its own error, and one without a nonce after one; token_type Bearer under dpop=require is refused at sign-in and signs the account out at a refresh; nothing is kept, and the daemon stays up"
    )
    func hostile() throws {
        let w = try AccountTests.World(accessTokenSeconds: 600, counted: true, dpop: "allowed")
        let proxy = try #require(w.proxy)
        #expect(try w.add("work").status == 0)
        try proxy.set("dpop-nonce-forever")
        let forever = try w.login("work")
        #expect(
            forever.status == 2 && forever.errorText.contains("use_dpop_nonce 3 times")
                && forever.errorText.contains("TokenExchangeFailed"), "\(forever.status) \(forever.errorText)")
        let asked = Self.tokenRequests(proxy)
        #expect(asked.count == 3, "bounded: \(asked.count) token requests")
        // Each retry carried the nonce the answer before gave (the proxy logs the one it gave).
        let given = asked.map { ($0["tampered"] as? String)?.split(separator: " ").last.map(String.init) }
        let carried = asked.map { ($0["dpop"] as? [String: Any])?["nonce"] as? String }
        #expect(
            carried.first == .some(nil) && Array(carried.dropFirst()) == Array(given.dropLast())
                && given.allSatisfy { $0 != nil }, "\(given) \(carried)")
        #expect(try w.desktop.linkctl("token", "work").status == 4)
        // Asked for a nonce and given none: one request, and it says so.
        try proxy.set("dpop-nonce-missing")
        let missing = try w.login("work")
        #expect(
            missing.status == 2 && missing.errorText.contains("no usable DPoP-Nonce"),
            "\(missing.status) \(missing.errorText)")
        #expect(Self.tokenRequests(proxy).count == asked.count + 1)
        #expect(try w.desktop.linkctl("token", "work").status == 4)

        #expect(try w.add("strict", ["--dpop", "require"]).status == 0)
        try proxy.set("bearer-token-type")
        let bearer = try w.login("strict")
        #expect(
            bearer.status == 2 && bearer.errorText.contains("not DPoP, although the account requires DPoP"),
            "\(bearer.status) \(bearer.errorText)")
        #expect(try w.desktop.linkctl("token", "strict").status == 4)
        #expect((try? w.keyring.items(account: "strict")) ?? (1, 0) == (0, 0))
        try proxy.set("honest")
        #expect(try w.login("strict").status == 0)
        // A refresh answered Bearer under dpop=require: signed out (the answer may hold a rotated refresh token; none
        // of it is kept).
        #expect(
            eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "strict")) ?? (0, 0) == (1, 0) })
        try proxy.set("bearer-token-type")
        let refresh = try w.desktop.linkctl("token", "strict", "--min-valid", "3600")
        #expect(
            refresh.status == 4 && refresh.errorText.contains("not DPoP, although the account requires DPoP"),
            "\(refresh.status) \(refresh.errorText)")
        #expect(
            eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "strict")) ?? (1, 0) == (0, 0) })
        #expect(w.daemon.isRunning)
    }

    @Test(
        "SignProof's refusals: an account with dpop=off has no key (NoDPoPKey, linkctl exit 1), an access token refreshed away is StaleToken, a bad method, URL or nonce is InvalidArgument naming it, an unknown name is UnknownAccount; a good proof names the method, the URL without query and the current token's hash, and carries no private key; GetToken with dpop_method and dpop_url answers the token and its proof in one call, half of the pair refused"
    )
    func signProofRefusals() throws {
        let w = try AccountTests.World(accessTokenSeconds: 600, dpop: "allowed")
        #expect(try w.add("plain", ["--dpop", "off"]).status == 0)
        let login = try w.login("plain")
        #expect(login.status == 0, "\(login.errorText)")
        #expect(!login.errorText.contains("dpop_jkt"), "no key named with dpop=off: \(login.errorText)")
        let bearer = try w.desktop.linkctl("token", "plain", "--json")
        #expect(bearer.text.lowercased().contains("\"token_type\":\"bearer\""), "\(bearer.text)")
        let none = try w.desktop.linkctl("token", "plain", "--dpop", "GET", "https://api.example/things")
        #expect(
            none.status == 1 && none.errorText.contains("NoDPoPKey")
                && none.errorText.contains("not bound to a DPoP key"), "\(none.status) \(none.errorText)")

        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "work")) ?? (0, 0) == (1, 0) })
        let old = try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)
        let current = try w.desktop.linkctl("token", "work", "--min-valid", "3600").text.trimmingCharacters(
            in: .newlines)
        #expect(!old.isEmpty && current != old, "a refresh gave a new access token")
        let stale = try Self.call(
            w.desktop, "SignProof", ["work", "GET", "https://api.example/things", "{'access_token': <'\(old)'>}"])
        #expect(
            stale.status != 0 && stale.errorText.contains("org.linkrouter.LinkRouter1.Error.StaleToken"),
            "\(stale.errorText)")
        for (args, word) in [
            (["work", "G ET", "https://api.example/things", "{}"], "method"),
            (["work", "GET", "ftp://api.example/things", "{}"], "url"),
            (["work", "GET", "https://user@api.example/", "{}"], "url"),
            (["work", "GET", "https://api.example/", "{'nonce': <'a\"b'>}"], "nonce"),
        ] {
            let r = try Self.call(w.desktop, "SignProof", args)
            #expect(
                r.status != 0 && r.errorText.contains("Error.InvalidArgument") && r.errorText.contains(word),
                "\(args): \(r.errorText)")
        }
        let unknown = try Self.call(w.desktop, "SignProof", ["nobody", "GET", "https://api.example/", "{}"])
        #expect(unknown.errorText.contains("Error.UnknownAccount"), "\(unknown.errorText)")
        let good = try Self.call(w.desktop, "SignProof", ["work", "GET", "https://api.example/things?x=1", "{}"])
        let proof = try #require(
            good.text.split(separator: "'").dropFirst().first.map(String.init), "\(good.text) \(good.errorText)")
        let claims = JWTParts.payload(proof)
        let ath = Base64URL.encode(try SHA256.hash(current))
        #expect(
            claims["htm"] as? String == "GET" && claims["htu"] as? String == "https://api.example/things"
                && claims["ath"] as? String == ath, "\(claims)")
        let jwk = try #require(JWTParts.header(proof)["jwk"] as? [String: Any])
        #expect(
            JWTParts.header(proof)["typ"] as? String == "dpop+jwt" && jwk["x"] is String && jwk["y"] is String
                && jwk["d"] == nil, "\(jwk)")

        // One call: GetToken with dpop_method and dpop_url answers the token and, beside it, the proof for that very
        // token (`linkctl token --dpop` makes this call). Half of the pair, or a bad URL, is InvalidArgument.
        let both = try Self.call(
            w.desktop, "GetToken", ["work", "{'dpop_method': <'POST'>, 'dpop_url': <'https://api.example/x?q=1'>}"])
        let answered = both.text
        let token = try #require(
            answered.components(separatedBy: "'token': <'").dropFirst().first?.split(separator: "'").first.map(
                String.init), "\(answered) \(both.errorText)")
        let paired = try #require(
            answered.components(separatedBy: "'dpop_proof': <'").dropFirst().first?.split(separator: "'").first.map(
                String.init), "\(answered)")
        let pairedClaims = JWTParts.payload(paired)
        let pairedATH = Base64URL.encode(try SHA256.hash(token))
        #expect(
            pairedClaims["htm"] as? String == "POST" && pairedClaims["htu"] as? String == "https://api.example/x"
                && pairedClaims["ath"] as? String == pairedATH, "\(pairedClaims)")
        for options in [
            "{'dpop_method': <'GET'>}", "{'dpop_url': <'https://api.example/'>}",
            "{'dpop_method': <'GET'>, 'dpop_url': <'ftp://api.example/'>}",
        ] {
            let r = try Self.call(w.desktop, "GetToken", ["work", options])
            #expect(
                r.status != 0 && r.errorText.contains("Error.InvalidArgument") && !r.text.contains(token),
                "\(options): \(r.errorText)")
        }
        let noKey = try Self.call(
            w.desktop, "GetToken", ["plain", "{'dpop_method': <'GET'>, 'dpop_url': <'https://api.example/'>}"])
        #expect(noKey.errorText.contains("Error.NoDPoPKey"), "\(noKey.errorText)")
        #expect(w.daemon.isRunning)
    }

    @Test(
        "PAR and DPoP together: the push proves the key (a DPoP header at the PAR endpoint), the browser's URL has client_id and request_uri only, and the token is bound"
    )
    func pushed() throws {
        let w = try AccountTests.World(counted: true, par: "required", dpop: "allowed")
        let proxy = try #require(w.proxy)
        #expect(try w.add("work").status == 0)
        let login = try w.login("work")
        #expect(login.status == 0, "\(login.errorText)")
        let push = try #require(proxy.requests().first { ($0["path"] as? String)?.hasSuffix("/par") == true })
        let jkt = try #require(push["dpop_jkt"] as? String, "\(push)")
        #expect(
            (push["dpop"] as? [String: Any])?["htu"] as? String == w.provider.issuer + "/par"
                && push["status"] as? Int == 201, "\(push)")
        let url = try #require(
            login.errorText.split(separator: "\n").first { $0.hasPrefix("  http") }.map {
                $0.trimmingCharacters(in: .whitespaces)
            })
        #expect(
            (URLComponents(string: url)?.queryItems ?? []).map(\.name).sorted() == ["client_id", "request_uri"],
            "\(url)")
        let token = try w.desktop.linkctl("token", "work")
        #expect(
            (JWTParts.payload(token.text.trimmingCharacters(in: .newlines))["cnf"] as? [String: Any])?["jkt"] as? String
                == jkt)
    }

    @Test(
        "a device login with DPoP: every poll proves the key, and the token the phone's approval brings is bound to it")
    func device() throws {
        let w = try AccountTests.World(counted: true, deviceSeconds: 600, dpop: "allowed")
        let proxy = try #require(w.proxy)
        #expect(try w.add("work").status == 0)
        let login = try DeviceLoginEndToEndTests.start(w.desktop)
        let shown = try #require(DeviceLoginEndToEndTests.shown(login), "no code shown: \(login.errorText)")
        #expect(
            try DeviceLoginEndToEndTests.approve(w.desktop, at: w.provider, page: shown.page, code: shown.code).status
                == 0)
        #expect(Subprocess.wait(login.pid, timeoutMilliseconds: 60_000) == 0, "\(login.errorText)")
        let polls = Self.tokenRequests(proxy)
        #expect(
            !polls.isEmpty && polls.allSatisfy { $0["dpop_jkt"] is String }
                && Set(polls.compactMap { $0["dpop_jkt"] as? String }).count == 1, "\(polls)")
        let jkt = try #require(polls.last?["dpop_jkt"] as? String)
        let token = try w.desktop.linkctl("token", "work")
        #expect(
            (JWTParts.payload(token.text.trimmingCharacters(in: .newlines))["cnf"] as? [String: Any])?["jkt"] as? String
                == jkt)
    }
}
