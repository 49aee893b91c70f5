internal import CCurl
import SystemKit

/// The daemon's HTTPS client, for OpenID Connect discovery, JWKS and the token
/// endpoint. One per daemon, on the event loop's thread: libcurl's multi socket
/// interface runs every transfer from the loop (`curl_multi_socket_action` on
/// readiness and on its timer), so a slow provider never blocks anything else.
///
/// Policy lives here, not with callers (see `RequestPolicy`, `Transfer+Setup`):
/// https only, except http to a loopback host; TLS 1.2 or later with the
/// certificate and host name always verified; no redirects followed, no
/// cookies, no `.netrc`, no compression; size and time limits on every request;
/// the caller's `User-Agent` (`linkrouterd/<version>`); `CURLOPT_NOSIGNAL` (no SIGALRM around name lookups).
///
/// Proxies: libcurl's own reading of `https_proxy` (or `HTTPS_PROXY`),
/// `all_proxy` and `no_proxy` applies; `http_proxy` never matters, since plain
/// http goes only to loopback, which is always reached directly. Honouring them
/// lets the daemon work on networks that allow no other way out, and costs
/// nothing in security: TLS runs end to end through the proxy's tunnel with the
/// provider's certificate verified, so a proxy learns only the host name. The
/// variables come from the user's own session environment (environment.d), the
/// same place every other program of theirs takes them from.
///
/// One TLS context: one share handle for the daemon's life holds the TLS
/// session cache, the connection cache and the DNS cache, so repeat requests to
/// a provider resume sessions and reuse connections although each request has
/// its own easy handle; the parsed CA store is cached in the multi handle
/// (libcurl 7.87+). Only this thread touches them, so they need no locks.
///
/// libcurl is loaded by the first client (`LibCurl`), not linked: a daemon that
/// makes no request never loads it, and one on a system without it starts and
/// fails only here, with `.unavailable`.
public final class HTTPClient {
    /// Names one request, for `cancel`.
    public struct RequestID: Hashable, Sendable {
        let value: UInt64
    }

    /// What every request says it comes from (`product/version`), given by the program using the client.
    public let userAgent: String

    /// `$SSL_CERT_FILE`: a test CA in place of the system's (see `init`).
    public static var environmentCAFile: String? { Environment.nonEmpty("SSL_CERT_FILE") }

    /// The CA file that is the whole trust store, or nil for the system's.
    public let caFile: String?

    private let curl: LibCurl
    private let loop: EventLoop
    private let multi: UnsafeMutableRawPointer
    private let share: UnsafeMutableRawPointer
    private var transfers: [RequestID: Transfer] = [:]
    private var idByHandle: [UnsafeMutableRawPointer: RequestID] = [:]
    /// Requests that could not start, each completing from a zero-delay timer.
    private var failing: [RequestID: EventLoop.TimerID] = [:]
    private var sockets: [Int32: EventLoop.SourceID] = [:]
    private var timer: EventLoop.TimerID?
    private var nextID: UInt64 = 1

    /// A client on `loop`. `caFile`, when given, replaces the system's CA store
    /// entirely, as OpenSSL's own `SSL_CERT_FILE` replaces its default bundle:
    /// set `SSL_CERT_FILE` to a test CA to reach a test provider. There is no
    /// way to turn verification off. Throws `.unavailable` when libcurl cannot
    /// be used; the first client loads it, after removing `SSLKEYLOGFILE` from
    /// the environment so that libcurl never writes TLS secrets (see `LibCurl`).
    public convenience init(loop: EventLoop, userAgent: String, caFile: String? = HTTPClient.environmentCAFile)
        throws(HTTPError)
    {
        try self.init(loop: loop, userAgent: userAgent, caFile: caFile, library: LibCurl.shared)
    }

    /// A client on `library`, for tests to give one that failed to load.
    init(loop: EventLoop, userAgent: String, caFile: String?, library: Result<LibCurl, HTTPError>) throws(HTTPError) {
        let curl = try library.get()
        guard let multi = lr_curl_multi_init(curl.fn) else {
            throw HTTPError(.internal, host: "", "libcurl could not create its multi handle (out of memory)")
        }
        guard let share = lr_curl_share_init(curl.fn) else {
            lr_curl_multi_cleanup(curl.fn, multi)
            throw HTTPError(.internal, host: "", "libcurl could not create its share handle (out of memory)")
        }
        self.curl = curl
        self.loop = loop
        self.caFile = caFile
        self.userAgent = userAgent
        self.multi = multi
        self.share = share
        for data in [CURL_LOCK_DATA_SSL_SESSION, CURL_LOCK_DATA_CONNECT, CURL_LOCK_DATA_DNS] {
            _ = lr_curl_share_setopt_lock_data(curl.fn, share, CURLSHOPT_SHARE, data)
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = lr_curl_multi_setopt_pointer(curl.fn, multi, CURLMOPT_SOCKETDATA, context)
        _ = lr_curl_multi_setopt_pointer(curl.fn, multi, CURLMOPT_TIMERDATA, context)
        _ = lr_curl_multi_setopt_socket_callback(curl.fn, multi, socketThunk)
        _ = lr_curl_multi_setopt_timer_callback(curl.fn, multi, timerThunk)
    }

    /// Drops every request without calling its completion, and closes every connection.
    deinit {
        _ = lr_curl_multi_setopt_socket_callback(curl.fn, multi, nil)
        _ = lr_curl_multi_setopt_timer_callback(curl.fn, multi, nil)
        for transfer in transfers.values { lr_curl_multi_remove_handle(curl.fn, multi, transfer.easy) }
        transfers = [:]
        for source in sockets.values { loop.remove(source) }
        for pending in failing.values { loop.cancel(pending) }
        if let timer { loop.cancel(timer) }
        lr_curl_multi_cleanup(curl.fn, multi)
        lr_curl_share_cleanup(curl.fn, share)
    }

    /// Starts `request`. `completion` runs exactly once, on the loop's thread, in a
    /// later turn of the loop, never inside `send`: with the response (any
    /// status) or the error. A request that cannot start (refused URL, bad
    /// header) completes the same way, asynchronously. After `cancel`, or once
    /// the client is gone, it never runs.
    @discardableResult
    public func send(_ request: HTTPRequest, completion: @escaping (Result<HTTPResponse, HTTPError>) -> Void)
        -> RequestID
    {
        let id = RequestID(value: nextID)
        nextID += 1
        do throws(HTTPError) {
            let transfer = try Transfer.make(
                request: request, curl: curl, share: share, caFile: caFile, userAgent: userAgent, completion: completion
            )
            transfers[id] = transfer
            idByHandle[transfer.easy] = id
            // Adding only arms libcurl's timer (the timer callback); the transfer starts from the loop.
            let code = lr_curl_multi_add_handle(curl.fn, multi, transfer.easy)
            guard code == CURLM_OK else {
                transfers[id] = nil
                idByHandle[transfer.easy] = nil
                throw HTTPError(
                    .internal, host: transfer.url.authority,
                    "libcurl could not start a request to \(transfer.url.authority)",
                    cause: String(cString: lr_curl_multi_strerror(curl.fn, code)))
            }
        } catch {
            failing[id] = loop.schedule(afterMilliseconds: 0) { [weak self] in
                guard let self, self.failing.removeValue(forKey: id) != nil else { return }
                completion(.failure(error))
            }
        }
        return id
    }

    /// Stops the request; its completion will not be called. Unknown or finished ids are ignored.
    public func cancel(_ id: RequestID) {
        if let pending = failing.removeValue(forKey: id) { loop.cancel(pending) }
        guard let transfer = transfers.removeValue(forKey: id) else { return }
        idByHandle[transfer.easy] = nil
        lr_curl_multi_remove_handle(curl.fn, multi, transfer.easy)
    }

    /// Requests started and not yet completed or cancelled.
    public var inFlight: Int { transfers.count + failing.count }

    // MARK: libcurl's callbacks (CurlCallbacks.swift) and the loop's

    func socketChanged(_ fd: Int32, what: Int32) {
        if what == CURL_POLL_REMOVE {
            if let source = sockets.removeValue(forKey: fd) { loop.remove(source) }
            return
        }
        var events: EventLoop.Events = []
        if what & CURL_POLL_IN != 0 { events.insert(.readable) }
        if what & CURL_POLL_OUT != 0 { events.insert(.writable) }
        if let source = sockets[fd] {
            loop.update(source, events: events)
        } else {
            sockets[fd] = loop.watch(fd, for: events) { [weak self] ready in self?.socketReady(fd, ready) }
        }
    }

    func timerChanged(_ milliseconds: Int) {
        if let timer { loop.cancel(timer) }
        timer = nil
        guard milliseconds >= 0 else { return }
        timer = loop.schedule(afterMilliseconds: Int64(milliseconds)) { [weak self] in
            guard let self else { return }
            self.timer = nil
            self.act(on: CURL_SOCKET_TIMEOUT, events: 0)
        }
    }

    private func socketReady(_ fd: Int32, _ ready: EventLoop.Events) {
        var mask: Int32 = 0
        // A hang-up is read as such: libcurl sees the end of the stream.
        if !ready.isDisjoint(with: [.readable, .hangup]) { mask |= CURL_CSELECT_IN }
        if ready.contains(.writable) { mask |= CURL_CSELECT_OUT }
        if ready.contains(.error) { mask |= CURL_CSELECT_ERR }
        act(on: fd, events: mask)
    }

    private func act(on fd: Int32, events: Int32) {
        var running: Int32 = 0
        _ = lr_curl_multi_socket_action(curl.fn, multi, fd, events, &running)
        finishDone()
    }

    /// Collects every finished transfer first, then calls the completions: one
    /// may send or cancel, and must not disturb libcurl's message queue.
    private func finishDone() {
        var done: [(RequestID, Result<HTTPResponse, HTTPError>)] = []
        var left: Int32 = 0
        while let message = lr_curl_multi_info_read(curl.fn, multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                let id = idByHandle.removeValue(forKey: easy), let transfer = transfers[id]
            else { continue }
            done.append((id, transfer.outcome(message.pointee.data.result)))
        }
        for (id, _) in done {
            if let transfer = transfers[id] { lr_curl_multi_remove_handle(curl.fn, multi, transfer.easy) }
        }
        for (id, result) in done {
            // An earlier completion in this batch may have cancelled this one.
            guard let transfer = transfers.removeValue(forKey: id) else { continue }
            transfer.completion(result)
        }
    }
}
