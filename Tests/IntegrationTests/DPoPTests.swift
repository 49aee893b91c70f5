import DBusKit
import Foundation
import Glibc
import JOSE
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
        proxy.requests().filter { ($0["path"] as? String)?.hasSuffix("/token") == true && $0["method"] as? String == "POST" }
    }

    @Test(
        "an account at a provider that lists DPoP: the code bound by dpop_jkt, the token by the proof, the resource takes the daemon's proof only; a replay and another key are refused; the key survives a restart and proves the refresh"
    )
    func boundEndToEnd() throws {
        let w = try AccountTests.World(accessTokenSeconds: 600, counted: true, dpop: "allowed")
        let proxy = try #require(w.proxy)
        let resource = try DPoPResource(desktop: w.desktop, jwks: w.provider.jwksURI)
        #expect(try w.add("work").status == 0)
        let login = try w.login("work")
        #expect(login.status == 0, "\(login.errorText)")
        let exchange = try #require(Self.tokenRequests(proxy).last)
        let proof = try #require(exchange["dpop"] as? [String: Any], "\(exchange)")
        let jkt = try #require(exchange["dpop_jkt"] as? String)
        #expect(proof["htm"] as? String == "POST" && proof["htu"] as? String == w.provider.tokenEndpoint && exchange["status"] as? Int == 200, "\(exchange)")
        // The authorize URL named the same key (dpop_jkt binds the code, RFC 9449 §10).
        let url = try #require(login.errorText.split(separator: "\n").first { $0.hasPrefix("  http") }.map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(URLComponents(string: url)?.queryItems?.first { $0.name == "dpop_jkt" }?.value == jkt, "\(url)")

        let token = try w.desktop.linkctl("token", "work", "--json")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(token.text.utf8)) as? [String: Any], "\(token.errorText)")
        #expect(answer["token_type"] as? String == "DPoP", "\(answer)")
        let access = try #require(answer["token"] as? String)
        #expect((JWTParts.payload(access)["cnf"] as? [String: Any])?["jkt"] as? String == jkt)

        // The resource takes the daemon's proof for this method and URL.
        let target = resource.origin + "/api/things?page=2"
        let headers = try w.desktop.linkctl("token", "work", "--dpop", "GET", target)
        #expect(headers.status == 0, "\(headers.errorText)")
        let lines = headers.text.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0] == "Authorization: DPoP " + access && lines[1].hasPrefix("DPoP: "), "\(headers.text)")
        let ok = try resource.call(w.desktop, "GET", target, headers: lines)
        #expect(ok.status == 200 && ok.body["jkt"] as? String == jkt, "\(ok)")
        // The same proof again: refused (its jti was seen).
        let replay = try resource.call(w.desktop, "GET", target, headers: lines)
        #expect(replay.status == 401 && (replay.body["reason"] as? String ?? "").contains("replayed"), "\(replay)")
        // A proof for another method is refused too.
        let otherMethod = try resource.call(w.desktop, "POST", target, headers: try w.desktop.linkctl("token", "work", "--dpop", "GET", target).text.split(separator: "\n").map(String.init))
        #expect(otherMethod.status == 401, "\(otherMethod)")
        // The token copied, presented with a thief's own key and a well-made proof: refused.
        let thief = try SigningKey.generate()
        let stolen = try DPoPProof.make(key: thief, method: "GET", url: target, issuedAt: Int64(Date().timeIntervalSince1970), accessToken: access)
        let refused = try resource.call(w.desktop, "GET", target, headers: ["Authorization: DPoP " + access, "DPoP: " + stolen])
        #expect(refused.status == 401 && (refused.body["reason"] as? String ?? "").contains("bound to another key"), "\(refused)")

        // A restart: the key comes back from the keyring with the tokens and proves the refresh (a token of 600 s has not the 3600 asked).
        try w.restart()
        let refreshed = try w.desktop.linkctl("token", "work", "--min-valid", "3600", "--json")
        #expect(refreshed.status == 0, "\(refreshed.errorText)")
        let refresh = try #require(Self.tokenRequests(proxy).last)
        #expect(refresh["grant_type"] as? String == "refresh_token" && refresh["status"] as? Int == 200 && refresh["dpop_jkt"] as? String == jkt, "\(refresh)")
        let again = try #require(try JSONSerialization.jsonObject(with: Data(refreshed.text.utf8)) as? [String: Any])
        let renewed = try #require(again["token"] as? String)
        #expect(renewed != access && (JWTParts.payload(renewed)["cnf"] as? [String: Any])?["jkt"] as? String == jkt)
        let after = try w.desktop.linkctl("token", "work", "--dpop", "POST", resource.origin + "/api/things")
        #expect(try resource.call(w.desktop, "POST", resource.origin + "/api/things", headers: after.text.split(separator: "\n").map(String.init)).status == 200)
        #expect(w.daemon.isRunning)
    }
}
