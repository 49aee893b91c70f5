import HTTPKit
import JOSE
import JSONKit
import LinkRouterCore
import OpenSSLKit

/// Requests that prove a DPoP key (RFC 9449): each send carries a fresh proof
/// for its method and URL, with the nonce the server last gave (§8, kept per
/// URL for the daemon's life); a `use_dpop_nonce` answer is sent again with
/// the new nonce, at most `maxNonceRetries` times, so a server that asks forever
/// costs a bounded number of requests and a clear error.
final class DPoPRequests {
    let http: HTTPClient
    let clock: () -> Int64
    /// Resends after `use_dpop_nonce`, per request.
    static let maxNonceRetries = 2
    /// Nonces kept, by URL; more are not remembered (a nonce is an optimisation, never needed for correctness).
    static let maxNonces = 64
    private var nonces: [String: String] = [:]

    init(http: HTTPClient, clock: @escaping () -> Int64) {
        self.http = http
        self.clock = clock
    }

    /// What a send came to: the response, a transport failure, a proof the daemon could
    /// not sign, or a server that asked for a new nonce more than `maxNonceRetries` times.
    enum Outcome {
        case response(HTTPResponse)
        case failed(HTTPError)
        case unsigned(JOSEError)
        case nonceRefused(Int)
        /// Asked for a nonce (`use_dpop_nonce`) without giving a usable `DPoP-Nonce`.
        case nonceMissing
    }

    /// Sends `request`, with a proof of `key` when there is one.
    func send(_ request: HTTPRequest, proving key: DPoPKey?, completion: @escaping (Outcome) -> Void) {
        guard let key else {
            _ = http.send(request) { r in
                switch r {
                case .success(let response): completion(.response(response))
                case .failure(let e): completion(.failed(e))
                }
            }
            return
        }
        let signing: SigningKey
        do { signing = try key.signingKey() } catch {
            completion(.unsigned(error))
            return
        }
        attempt(request, signing, retries: 0, completion)
    }

    private func attempt(
        _ request: HTTPRequest, _ key: SigningKey, retries: Int, _ completion: @escaping (Outcome) -> Void
    ) {
        var signed = request
        let nonce = nonces[request.url]
        do {
            signed.headers.set(
                "DPoP",
                try DPoPProof.make(
                    key: key, method: request.method.rawValue, url: request.url, issuedAt: clock(), nonce: nonce))
        } catch {
            completion(.unsigned(error))
            return
        }
        _ = http.send(signed) { [self] r in
            switch r {
            case .failure(let e):
                completion(.failed(e))
            case .success(let response):
                let given = remember(response, for: request.url)
                guard Self.asksForNonce(response) else { return completion(.response(response)) }
                guard given != nil else { return completion(.nonceMissing) }
                // Asked again with the same nonce, or once too often: the server will not take a proof from us.
                guard given != nonce, retries < Self.maxNonceRetries else {
                    return completion(.nonceRefused(retries + 1))
                }
                attempt(request, key, retries: retries + 1, completion)
            }
        }
    }

    /// Keeps the `DPoP-Nonce` a response carries (RFC 9449 §8.1: visible ASCII, no quote or backslash); returns it.
    private func remember(_ response: HTTPResponse, for url: String) -> String? {
        guard let nonce = response.headers["DPoP-Nonce"], OAuthText.isDPoPNonce(nonce) else { return nil }
        if nonces[url] == nil, nonces.count >= Self.maxNonces { nonces.removeAll() }
        nonces[url] = nonce
        return nonce
    }

    /// `use_dpop_nonce`: 400 with the JSON error at an authorization server (§8), 401 with it in `WWW-Authenticate` at
    /// a resource (§9).
    static func asksForNonce(_ response: HTTPResponse) -> Bool {
        guard response.status == 400 || response.status == 401 else { return false }
        if (try? JSONParser.parse(response.body))?["error"]?.stringValue == "use_dpop_nonce" { return true }
        return response.headers.values("WWW-Authenticate").contains { $0.contains("use_dpop_nonce") }
    }
}
