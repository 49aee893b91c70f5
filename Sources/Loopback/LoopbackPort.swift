import Glibc
import LinkRouterCore

/// A free port for a loopback redirect that must name one: a client
/// registered at a provider that matches loopback redirects exactly, port
/// included (RFC 8252 §7.3 lets any port through; not every provider does).
/// The port is bound on every address the redirect's host resolves to, by the
/// same rules as a listener (`LoopbackSocket`), then closed: the listener of
/// each later sign-in binds it again (`SO_REUSEADDR` lets it, past TIME_WAIT).
public enum LoopbackPort {
    public static func free(_ binding: LoopbackBinding) throws(ListenerError) -> Int {
        let bound = try LoopbackSocket.bind(addresses: binding.addresses, port: 0)
        for b in bound { close(b.fd) }
        guard let port = bound.first?.port else { throw ListenerError("no loopback address could be bound") }
        return port
    }
}
