import HTTPKit
import JSONKit
import LinkRouterCore
import OpenSSLKit
import SystemKit

/// What the daemon knows of each provider: its metadata by issuer and its
/// keys by JWKS URL, each kept for its HTTP lifetime (`CacheLifetime`).
/// Concurrent asks for the same document share one request. Runs on the
/// daemon's loop thread, like the `HTTPClient` under it; completions are
/// called there, never from inside the call that asked.
public final class ProviderDirectory {
    struct Cached<Value> {
        let value: Value
        let until: Int64
    }

    public let http: HTTPClient
    let loop: EventLoop
    let clock: () -> Int64
    private var metadata: [String: Cached<ProviderMetadata>] = [:]
    private var keys: [String: Cached<[PublicKey]>] = [:]
    /// Protected resources' metadata (RFC 9728) by resource URL.
    private var resources: [String: Cached<ProtectedResource>] = [:]
    private var resourceWaiters: [String: [(Result<ProtectedResource, RouterError>) -> Void]] = [:]
    private var metadataWaiters: [String: [(Result<ProviderMetadata, RouterError>) -> Void]] = [:]
    private var keyWaiters: [String: [(Result<[PublicKey], RouterError>) -> Void]] = [:]

    /// Discovery documents and key sets are a few KiB.
    static let maxDocumentBytes = 256 * 1024

    public init(http: HTTPClient, loop: EventLoop, clock: @escaping () -> Int64) {
        self.http = http
        self.loop = loop
        self.clock = clock
    }

    /// The metadata still fresh in the cache, if any (so a `BeginSession` can go on at once).
    public func cachedMetadata(_ issuer: String) -> ProviderMetadata? {
        guard let c = metadata[issuer], c.until > clock() else { return nil }
        return c.value
    }

    /// The issuer's metadata: cached, or fetched (OpenID Connect Discovery, then RFC 8414) and checked.
    public func metadata(_ issuer: String, completion: @escaping (Result<ProviderMetadata, RouterError>) -> Void) {
        metadataWaiters[issuer, default: []].append(completion)
        guard metadataWaiters[issuer]?.count == 1 else { return }
        fetchMetadata(issuer, candidates: ProviderMetadata.discoveryURLs(for: issuer)[...])
    }

    private func fetchMetadata(_ issuer: String, candidates: ArraySlice<String>) {
        guard let url = candidates.first else { return }
        var request = HTTPRequest.get(url)
        request.maxResponseBytes = Self.maxDocumentBytes
        _ = http.send(request) { [self] result in
            let outcome: Result<ProviderMetadata, RouterError>
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
                if case .success(let m) = outcome {
                    let lifetime = CacheLifetime.seconds(response)
                    if lifetime > 0 { metadata[issuer] = Cached(value: m, until: response.receivedAt + lifetime) }
                }
            }
            for waiter in metadataWaiters.removeValue(forKey: issuer) ?? [] { waiter(outcome) }
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
    /// its well-known place and checked for it (`ProtectedResource`).
    public func resourceMetadata(
        _ resource: String, completion: @escaping (Result<ProtectedResource, RouterError>) -> Void
    ) {
        if let c = resources[resource], c.until > clock() {
            _ = loop.schedule(afterMilliseconds: 0) { completion(.success(c.value)) }
            return
        }
        resourceWaiters[resource, default: []].append(completion)
        guard resourceWaiters[resource]?.count == 1 else { return }
        guard let url = ProtectedResource.metadataURL(for: resource) else {
            for waiter in resourceWaiters.removeValue(forKey: resource) ?? [] {
                waiter(.failure(RouterError(.invalidArgument, "\(resource) is not a resource URL")))
            }
            return
        }
        var request = HTTPRequest.get(url)
        request.maxResponseBytes = Self.maxDocumentBytes
        _ = http.send(request) { [self] result in
            let outcome: Result<ProtectedResource, RouterError>
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
                    let lifetime = CacheLifetime.seconds(response)
                    if lifetime > 0 {
                        resources[resource] = Cached(value: found, until: response.receivedAt + lifetime)
                    }
                } catch let error as RouterError {
                    outcome = .failure(error)
                } catch {
                    outcome = .failure(
                        RouterError(
                            .discoveryFailed, "the resource metadata at \(url) is not a JSON document (\(error))"))
                }
            }
            for waiter in resourceWaiters.removeValue(forKey: resource) ?? [] { waiter(outcome) }
        }
    }

    /// The keys at `url`: cached, or fetched. `refresh` fetches even when
    /// cached (an ID token named a `kid` the cached set lacks: keys rotate).
    public func keys(
        _ url: String, refresh: Bool = false, completion: @escaping (Result<[PublicKey], RouterError>) -> Void
    ) {
        if !refresh, let c = keys[url], c.until > clock() {
            // Still asynchronous, like a fetch, so callers have one path.
            _ = loop.schedule(afterMilliseconds: 0) { completion(.success(c.value)) }
            return
        }
        keyWaiters[url, default: []].append(completion)
        guard keyWaiters[url]?.count == 1 else { return }
        var request = HTTPRequest.get(url, accept: "application/jwk-set+json, application/json")
        request.maxResponseBytes = Self.maxDocumentBytes
        _ = http.send(request) { [self] result in
            let outcome: Result<[PublicKey], RouterError>
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
                    let lifetime = CacheLifetime.seconds(response)
                    if lifetime > 0 { keys[url] = Cached(value: found, until: response.receivedAt + lifetime) }
                } catch let error as RouterError {
                    outcome = .failure(error)
                } catch {
                    outcome = .failure(
                        RouterError(
                            .idTokenRejected,
                            "the provider's key set \(url) is not JSON (\(error)); no token was handed out"))
                }
            }
            for waiter in keyWaiters.removeValue(forKey: url) ?? [] { waiter(outcome) }
        }
    }
}
