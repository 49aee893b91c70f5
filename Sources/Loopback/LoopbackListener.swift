internal import CMicroHTTPD
import Glibc
import SystemKit

/// The daemon's HTTP listener for one loopback session (RFC 8252 §7.3), on
/// libmicrohttpd in external-poll epoll mode: MHD parses HTTP and enforces
/// its size limits and timeouts; its one epoll descriptor sits in the
/// daemon's loop, so a slow client never blocks anything else.
public final class LoopbackListener {
    /// Bounds on what a client can make the listener hold (threat model L5).
    public struct Limits: Sendable {
        public var connections: UInt32 = 32
        public var timeoutSeconds: UInt32 = 10
        /// Per-connection memory: request line and headers must fit (≈ 8 KiB of headers).
        public var memoryBytes: Int = 16 * 1024
        public init() {}
    }

    /// The addresses it listens on, all on `port`.
    public let addresses: [String]
    public let port: Int
    /// The `Host` header a genuine request carries: the redirect URI's host and port.
    public let expectedHost: String
    public let path: String

    private let loop: EventLoop
    private let handler: (HTTPRequest) -> HTTPResponse
    /// A page served once, to the daemon's own user only (a sign-out's, `SignOutPage`): its path and its answer.
    private let page: (path: String, serve: () -> HTTPResponse)?
    fileprivate var pageServed = false
    fileprivate let mhd: MicroHTTPD
    /// One MHD daemon per bound socket (127.0.0.1 and ::1 for `localhost`), each in the loop.
    private var daemons: [(daemon: OpaquePointer, source: EventLoop.SourceID)] = []
    private var timer: EventLoop.TimerID?
    private var context: Unmanaged<LoopbackListener>?
    /// Raw request targets by connection, from MHD's URI callback.
    fileprivate var targets: [OpaquePointer: String] = [:]
    fileprivate var finalSent = false
    /// Called once after the final response has gone out.
    public var onFinished: (() -> Void)?

    /// Binds every address on one port (`port`, or a free one when 0) and starts answering.
    public init(
        addresses: [String], port: Int, hostLiteral: String, path: String, loop: EventLoop, limits: Limits = Limits(),
        page: (path: String, serve: () -> HTTPResponse)? = nil, handler: @escaping (HTTPRequest) -> HTTPResponse
    ) throws(ListenerError) {
        let mhd: MicroHTTPD
        switch MicroHTTPD.shared {
        case .success(let lib): mhd = lib
        case .failure(let error): throw error
        }
        self.mhd = mhd
        let sockets = try LoopbackSocket.bind(addresses: addresses, port: port)
        self.addresses = sockets.map(\.address)
        self.port = sockets[0].port
        self.expectedHost = hostLiteral + ":" + String(sockets[0].port)
        self.path = path
        self.page = page
        self.loop = loop
        self.handler = handler
        let ctx = Unmanaged.passUnretained(self)
        context = ctx
        for (i, socket) in sockets.enumerated() {
            var options: [MHD_OptionItem] = [
                MHD_OptionItem(option: .LISTEN_SOCKET, value: Int(socket.fd), ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_LIMIT, value: Int(limits.connections), ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: Int(limits.timeoutSeconds), ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: limits.memoryBytes, ptr_value: nil),
                MHD_OptionItem(
                    option: .URI_LOG_CALLBACK, value: unsafeBitCast(uriThunk, to: Int.self), ptr_value: ctx.toOpaque()),
                MHD_OptionItem(
                    option: .UNESCAPE_CALLBACK, value: unsafeBitCast(keepEscapesThunk, to: Int.self), ptr_value: nil),
                MHD_OptionItem(
                    option: .NOTIFY_COMPLETED, value: unsafeBitCast(completedThunk, to: Int.self),
                    ptr_value: ctx.toOpaque()),
                MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
            ]
            var flags = UInt32(MHD_USE_EPOLL.rawValue)
            if socket.address == "::1" { flags |= UInt32(MHD_USE_IPv6.rawValue) }
            guard
                let d = options.withUnsafeMutableBufferPointer({
                    lr_mhd_start(mhd.start, flags, accessThunk, ctx.toOpaque(), $0.baseAddress)
                })
            else {
                for rest in sockets[i...] { Glibc.close(rest.fd) }
                close()
                throw ListenerError("libmicrohttpd could not start a listener on \(socket.address):\(socket.port)")
            }
            let epoll = lr_mhd_epoll_fd(mhd.info, d)
            let source = loop.watch(epoll, for: .readable) { [weak self] _ in self?.service() }
            daemons.append((d, source))
        }
        rearm()
    }

    deinit { close() }

    /// Stops listening; open connections are dropped.
    public func close() {
        if let timer { loop.cancel(timer) }
        timer = nil
        for (d, source) in daemons {
            loop.remove(source)
            lr_mhd_stop(mhd.stop, d)
        }
        daemons = []
        targets = [:]
    }

    private func service() {
        for (d, _) in daemons { _ = lr_mhd_run(mhd.run, d) }
        rearm()
    }

    /// MHD's own timeouts (slow clients) run on one loop timer for all sockets.
    private func rearm() {
        guard !daemons.isEmpty else { return }
        if let timer { loop.cancel(timer) }
        var wait: Int64 = 1000
        for (d, _) in daemons {
            var ms: UInt64 = 0
            if lr_mhd_get_timeout(mhd.timeout, d, &ms) == .YES { wait = min(wait, Int64(min(ms, 1000))) }
        }
        timer = loop.schedule(afterMilliseconds: wait) { [weak self] in
            self?.timer = nil
            self?.service()
        }
    }

    /// The listener's own rules, before any session is consulted.
    fileprivate func respond(connection: OpaquePointer, method: String) -> HTTPResponse {
        guard method == "GET" else { return HTTPResponse(status: 405, body: CallbackPage.status(405)) }
        let host = lr_mhd_header(mhd.header, connection, "Host").map { String(cString: $0) }
        // DNS rebinding (threat model L1): only the literal the redirect URI names.
        guard let host, host == expectedHost else { return HTTPResponse(status: 400, body: CallbackPage.status(400)) }
        guard let target = targets[connection], target.hasPrefix("/") else {
            return HTTPResponse(status: 400, body: CallbackPage.status(400))
        }
        let pathPart =
            target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
            ?? target
        if let page, pathPart == page.path { return servePage(page.serve, connection: connection) }
        guard pathPart == path else { return HTTPResponse(status: 404, body: CallbackPage.status(404)) }
        // A sub-resource fetch from a web page is not a navigation (threat model L3).
        if let dest = lr_mhd_header(mhd.header, connection, "Sec-Fetch-Dest").map({ String(cString: $0) }),
            dest != "document"
        {
            return HTTPResponse(status: 400, body: CallbackPage.status(400))
        }
        if finalSent { return HTTPResponse(status: 400, body: CallbackPage.status(400)) }
        return handler(HTTPRequest(target: target, method: method, host: host))
    }

    /// The page, once, to a connection of this process's user (another user's program that read the page's URL off
    /// the browser's command line gets 403, and the page is not spent).
    private func servePage(_ serve: () -> HTTPResponse, connection: OpaquePointer) -> HTTPResponse {
        var address = [UInt8](repeating: 0, count: 16)
        var family: Int32 = 0
        let clientPort = Int(
            address.withUnsafeMutableBufferPointer {
                lr_mhd_client(mhd.connectionInfo, connection, $0.baseAddress, &family)
            })
        guard clientPort > 0, family == 4 || family == 6 else {
            return HTTPResponse(status: 403, body: CallbackPage.status(403))
        }
        let client = LoopbackPeer.End(address: Array(address.prefix(family == 4 ? 4 : 16)), port: clientPort)
        // The listener's end: the loopback address of the client's family, on the listener's port.
        let server = LoopbackPeer.End(
            address: family == 4 ? [127, 0, 0, 1] : [UInt8](repeating: 0, count: 15) + [1], port: port)
        guard LoopbackPeer.uid(client: client, server: server) == getuid() else {
            return HTTPResponse(status: 403, body: CallbackPage.status(403))
        }
        guard !pageServed else { return HTTPResponse(status: 404, body: CallbackPage.status(404)) }
        pageServed = true
        return serve()
    }

    fileprivate func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        var body = Array(response.body.utf8)
        guard let r = body.withUnsafeMutableBytes({ lr_mhd_response(mhd.response, $0.count, $0.baseAddress) }) else {
            return .NO
        }
        defer { lr_mhd_destroy_response(mhd.destroyResponse, r) }
        let headers = [
            ("Content-Type", "text/html; charset=utf-8"),
            ("Cache-Control", "no-store"),
            ("Pragma", "no-cache"),
            ("Referrer-Policy", "no-referrer"),
            (
                "Content-Security-Policy",
                response.contentSecurityPolicy ?? "default-src 'none'; form-action 'none'; frame-ancestors 'none'"
            ),
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
            ("Connection", "close"),
        ]
        for (k, v) in headers { lr_mhd_add_header(mhd.addHeader, r, k, v) }
        if response.status == 405 { lr_mhd_add_header(mhd.addHeader, r, "Allow", "GET") }
        if response.final { finalSent = true }
        return lr_mhd_queue(mhd.queue, connection, UInt32(response.status), r)
    }

    fileprivate func completed(_ connection: OpaquePointer) {
        targets[connection] = nil
        if finalSent, let onFinished {
            self.onFinished = nil
            // Close after MHD has finished with this connection, not inside its callback.
            loop.schedule(afterMilliseconds: 0) { onFinished() }
        }
    }
}

private func listener(_ cls: UnsafeMutableRawPointer?) -> LoopbackListener {
    Unmanaged<LoopbackListener>.fromOpaque(cls!).takeUnretainedValue()
}

private let accessThunk: MHD_AccessHandlerCallback = { cls, connection, _, method, _, _, uploadSize, _ in
    guard let connection else { return .NO }
    let l = listener(cls)
    let m = method.map { String(cString: $0) } ?? ""
    // Any upload is discarded: the answer (405) does not depend on it.
    if let uploadSize { uploadSize.pointee = 0 }
    return l.queue(l.respond(connection: connection, method: m), on: connection)
}

private let uriThunk:
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
        cls, uri, connection in
        if let uri, let connection { listener(cls).targets[connection] = String(cString: uri) }
        return nil
    }

private let keepEscapesThunk:
    @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = { _, _, s in
        s.map { strlen($0) } ?? 0
    }

private let completedThunk: MHD_RequestCompletedCallback = { cls, connection, _, _ in
    if let connection { listener(cls).completed(connection) }
}
