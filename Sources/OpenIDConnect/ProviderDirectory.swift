import HTTPKit
import JSONKit
import LinkRouterCore
import OpenSSLKit
import SystemKit

/// What the daemon knows of each provider: its metadata by issuer, its
/// keys by JWKS URL, and protected resources' metadata by resource URL, each
/// kept for its HTTP lifetime (`CacheLifetime`); concurrent asks for the same
/// document share one request (`SharedFetches`). Runs on the daemon's loop
/// thread, like the `HTTPClient` under it; completions are called there,
/// never from inside the call that asked.
public final class ProviderDirectory {
    public let http: HTTPClient
    let loop: EventLoop
    let clock: () -> Int64
    private var metadataFetches = SharedFetches<ProviderMetadata>()
    private var keyFetches = SharedFetches<[PublicKey]>()
    /// Protected resources' metadata (RFC 9728) by resource URL.
    private var resourceFetches = SharedFetches<ProtectedResource>()

    /// Discovery documents and key sets are a few KiB.
    static let maxDocumentBytes = 256 * 1024

    public init(http: HTTPClient, loop: EventLoop, clock: @escaping () -> Int64) {
        self.http = http
        self.loop = loop
        self.clock = clock
    }

    /// The metadata still fresh in the cache, if any (so a `BeginSession` can go on at once).
    public func cachedMetadata(_ issuer: String) -> ProviderMetadata? {
        metadataFetches.fresh(issuer, now: clock())
    }

    /// The issuer's metadata, fetched (OpenID Connect Discovery, then RFC 8414) and checked; callers that can go on
    /// with a cached one ask `cachedMetadata` first.
    public func metadata(_ issuer: String, completion: @escaping (Result<ProviderMetadata, RouterError>) -> Void) {
        guard metadataFetches.wait(issuer, completion) else { return }
        fetchMetadata(issuer, candidates: ProviderMetadata.discoveryURLs(for: issuer)[...])
    }

    /// A cached value, handed on in a later turn of the loop, like a fetch's, so callers have one path.
    private func later<Value>(_ value: Value, _ completion: @escaping (Result<Value, RouterError>) -> Void) {
        _ = loop.schedule(afterMilliseconds: 0) { completion(.success(value)) }
    }

    /// Until when a document that came in `response` is kept, or nil when its lifetime is none.
    private static func keptUntil(_ response: HTTPResponse) -> Int64? {
        let lifetime = CacheLifetime.seconds(response)
        return lifetime > 0 ? response.receivedAt + lifetime : nil
    }

    private func fetchMetadata(_ issuer: String, candidates: ArraySlice<String>) {
        guard let url = candidates.first else { return }
        var request = HTTPRequest.get(url)
        request.maxResponseBytes = Self.maxDocumentBytes
        _ = http.send(request) { [self] result in
            let outcome: Result<ProviderMetadata, RouterError>
            var until: Int64?
            switch result {
            case .failure(let error):
                outcome = .failure(
                    RouterError(
                        .discoveryFailed,
                        "could not fetch the metadata of \(issuer) from \(error.host): \(error.description)"))
            case .success(let response)
            where (response.status == 404 || response.status == 410) && candidates.count > 1:
                // No OpenID Connect document: try RFC 8414's place.
                fetchMetadata(issuer, candidates: candidates.dropFirst())
                return
            case .success(let response):
                outcome = Self.readMetadata(response, issuer: issuer, url: url)
                until = Self.keptUntil(response)
            }
            for waiter in metadataFetches.finish(issuer, outcome, until: until) { waiter(outcome) }
        }
    }

    static func readMetadata(_ response: HTTPResponse, issuer: String, url: String) -> Result<
        ProviderMetadata, RouterError
    > {
        guard response.status == 200 else {
            let redirect = response.location.map { " (a redirect to \($0); discovery follows none)" } ?? ""
            return .failure(
                RouterError(
                    .discoveryFailed,
                    "\(url) answered HTTP \(response.status)\(redirect); is \(issuer) the issuer's exact identifier?"))
        }
        do {
            let document = try JSONParser.parse(response.body)
            return .success(try ProviderMetadata(document: document, expectedIssuer: issuer, from: url))
        } catch let error as RouterError {
            return .failure(error)
        } catch {
            return .failure(
                RouterError(
                    .discoveryFailed,
                    "\(url) did not answer with a JSON document (\(response.mediaType ?? "no content type"): \(error))")
            )
        }
    }

    /// The metadata of the protected resource `resource` (RFC 9728 §3): cached for its HTTP lifetime, or fetched from
    /// `url` (its well-known place, or where its challenge said) and checked for it (`ProtectedResource`). Concurrent
    /// asks for one resource share the first one's fetch.
    public func resourceMetadata(
        _ resource: String, at url: String, completion: @escaping (Result<ProtectedResource, RouterError>) -> Void
    ) {
        if let value = resourceFetches.fresh(resource, now: clock()) { return later(value, completion) }
        guard resourceFetches.wait(resource, completion) else { return }
        var request = HTTPRequest.get(url)
        request.maxResponseBytes = Self.maxDocumentBytes
        _ = http.send(request) { [self] result in
            let outcome: Result<ProtectedResource, RouterError>
            var until: Int64?
            switch result {
            case .failure(let error):
                outcome = .failure(
                    RouterError(
                        .discoveryFailed,
                        "could not fetch the resource metadata of \(resource) from \(error.host): \(error.description)")
                )
            case .success(let response) where response.status != 200:
                outcome = .failure(
                    RouterError(
                        .discoveryFailed,
                        "\(url) answered HTTP \(response.status): \(resource) publishes no resource metadata (RFC 9728) there, so where to sign in for it is unknown; name the account instead"
                    ))
            case .success(let response):
                do {
                    let found = try ProtectedResource(
                        document: try JSONParser.parse(response.body), expected: resource, from: url)
                    outcome = .success(found)
                    until = Self.keptUntil(response)
                } catch let error as RouterError {
                    outcome = .failure(error)
                } catch {
                    outcome = .failure(
                        RouterError(
                            .discoveryFailed, "the resource metadata at \(url) is not a JSON document (\(error))"))
                }
            }
            for waiter in resourceFetches.finish(resource, outcome, until: until) { waiter(outcome) }
        }
    }

    /// The keys at `url`: cached, or fetched. `refresh` fetches even when
    /// cached (an ID token named a `kid` the cached set lacks: keys rotate).
    public func keys(
        _ url: String, refresh: Bool = false, completion: @escaping (Result<[PublicKey], RouterError>) -> Void
    ) {
        if !refresh, let value = keyFetches.fresh(url, now: clock()) { return later(value, completion) }
        guard keyFetches.wait(url, completion) else { return }
        var request = HTTPRequest.get(url, accept: "application/jwk-set+json, application/json")
        request.maxResponseBytes = Self.maxDocumentBytes
        _ = http.send(request) { [self] result in
            let outcome: Result<[PublicKey], RouterError>
            var until: Int64?
            switch result {
            case .failure(let error):
                outcome = .failure(
                    RouterError(
                        .idTokenRejected,
                        "could not fetch the provider's keys from \(error.host): \(error.description); no token was handed out"
                    ))
            case .success(let response) where response.status != 200:
                outcome = .failure(
                    RouterError(
                        .idTokenRejected,
                        "the provider's key set \(url) answered HTTP \(response.status); no token was handed out"))
            case .success(let response):
                do {
                    let found = try JWKSet.keys(try JSONParser.parse(response.body), from: url)
                    outcome = .success(found)
                    until = Self.keptUntil(response)
                } catch let error as RouterError {
                    outcome = .failure(error)
                } catch {
                    outcome = .failure(
                        RouterError(
                            .idTokenRejected,
                            "the provider's key set \(url) is not JSON (\(error)); no token was handed out"))
                }
            }
            for waiter in keyFetches.finish(url, outcome, until: until) { waiter(outcome) }
        }
    }
}
