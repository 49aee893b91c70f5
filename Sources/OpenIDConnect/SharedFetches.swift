import LinkRouterCore

/// Documents fetched by a key (an issuer's metadata, a key set by its URL, a protected resource's metadata): each
/// kept until its HTTP lifetime ends, and concurrent asks for one key sharing one request. `ProviderDirectory` keeps
/// one per kind of document and does the fetching; this is only the bookkeeping the three share.
///
/// The waiters are handed back by `finish`, never called from inside it: a waiter may ask the directory again (for
/// the same key, even), which must not happen while this value is being changed.
struct SharedFetches<Value> {
    typealias Waiter = (Result<Value, RouterError>) -> Void

    private var cached: [String: (value: Value, until: Int64)] = [:]
    private var waiters: [String: [Waiter]] = [:]

    /// The value of `key` while its lifetime lasts (at `now`, unix seconds).
    func fresh(_ key: String, now: Int64) -> Value? {
        guard let c = cached[key], c.until > now else { return nil }
        return c.value
    }

    /// `completion` waits for the fetch of `key`; true when it is the first waiter, whose caller starts the fetch.
    mutating func wait(_ key: String, _ completion: @escaping Waiter) -> Bool {
        waiters[key, default: []].append(completion)
        return waiters[key]?.count == 1
    }

    /// The fetch of `key` ended with `outcome`: a value kept until `until` (when given and later than the answer
    /// came), and the waiters to tell, in the order they came.
    mutating func finish(_ key: String, _ outcome: Result<Value, RouterError>, until: Int64?) -> [Waiter] {
        if case .success(let value) = outcome, let until { cached[key] = (value, until) }
        return waiters.removeValue(forKey: key) ?? []
    }
}
