internal import CMicroHTTPD
import SystemKit

/// libmicrohttpd, opened on first use: its symbols, looked up once.
final class MicroHTTPD: @unchecked Sendable {
    // Immutable after init; the pointers are code in a library never unloaded.
    let start, info, run, timeout, stop, header, response, addHeader, queue, destroyResponse,
        connectionInfo: UnsafeMutableRawPointer

    /// The library, or why it cannot be used (then loopback sessions are refused, nothing else is affected).
    static let shared: Result<MicroHTTPD, ListenerError> = {
        let soname = "libmicrohttpd.so.12"
        let sym: SharedLibrary.Resolver
        switch SharedLibrary.open(soname) {
        case .success(let l): sym = l.resolver
        case .failure(let e):
            return .failure(
                ListenerError(
                    "loopback redirects need \(soname) (Debian: libmicrohttpd12), which cannot be loaded: \(e.reason)"))
        }
        let lib = MicroHTTPD(
            start: sym("MHD_start_daemon"), info: sym("MHD_get_daemon_info"), run: sym("MHD_run"),
            timeout: sym("MHD_get_timeout"),
            stop: sym("MHD_stop_daemon"), header: sym("MHD_lookup_connection_value"),
            response: sym("MHD_create_response_from_buffer"),
            addHeader: sym("MHD_add_response_header"), queue: sym("MHD_queue_response"),
            destroyResponse: sym("MHD_destroy_response"), connectionInfo: sym("MHD_get_connection_info"))
        guard sym.missing.isEmpty else {
            return .failure(ListenerError("\(soname) lacks \(sym.missing.joined(separator: ", ")); it is too old"))
        }
        return .success(lib)
    }()

    private init(
        start: UnsafeMutableRawPointer, info: UnsafeMutableRawPointer, run: UnsafeMutableRawPointer,
        timeout: UnsafeMutableRawPointer,
        stop: UnsafeMutableRawPointer, header: UnsafeMutableRawPointer, response: UnsafeMutableRawPointer,
        addHeader: UnsafeMutableRawPointer, queue: UnsafeMutableRawPointer, destroyResponse: UnsafeMutableRawPointer,
        connectionInfo: UnsafeMutableRawPointer
    ) {
        self.start = start
        self.info = info
        self.run = run
        self.timeout = timeout
        self.stop = stop
        self.header = header
        self.response = response
        self.addHeader = addHeader
        self.queue = queue
        self.destroyResponse = destroyResponse
        self.connectionInfo = connectionInfo
    }
}
