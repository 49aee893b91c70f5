import Glibc
import JSONKit
import LinkRouterCore
import SodiumKit
import SystemKit

/// The oidc-agent socket (`$XDG_RUNTIME_DIR/linkrouter/agent`, 0600): oidc-agent's
/// clients (`oidc-token`, liboidc-agent and its ports) ask it for tokens as they
/// ask oidc-agent, one request a connection, plain JSON or encrypted
/// (`AgentFrame`). It owns the listener and its connections; each connection is a
/// caller of the core like a bus client (`agent:N`), identified by the kernel's
/// word for its process (`SO_PEERCRED`, a pidfd), so the same rules decide which
/// accounts it sees. Unlike oidc-agent, another user's process is refused at
/// once, and no client holds up another: every connection is served on the
/// loop, with a deadline for its request.
final class Agent {
    private let loop: EventLoop
    private var listener: UnixListener?
    private var listening: EventLoop.SourceID?
    /// The forwards (`AgentForward`), by path: each its own listener.
    private var forwards: [String: (forward: AgentForward, listener: UnixListener, source: EventLoop.SourceID)] = [:]
    private var connections: [String: AgentConnection] = [:]
    /// The connection each held request belongs to, by the operation the core holds it under.
    private var held: [OperationID: String] = [:]
    private var accepted: UInt64 = 0
    private let uid = getuid()

    /// A whole request: decided by the core (wired by `Daemon`), its reply now or `.held`, or refused by the
    /// forward it came through.
    var onRequest: ((String, AgentRequest, AgentForward?) -> Result<Transition.Reply, AgentRefusal>)?
    /// A connection ended: the core forgets it as it forgets a client that left the bus.
    var onGone: ((String) -> Void)?
    var onLog: ((Log.Priority, String) -> Void)?

    /// Connections served at once; more wait in the backlog.
    static let maxConnections = 256
    /// The time a client has to send its whole request, and to take its answer.
    static let deadlineMilliseconds: Int64 = 10_000

    /// Where it listens (`LinkRouterPaths.agentSocket`); nil without a runtime directory (then it does not).
    let path: String?

    /// The socket systemd made for it (`linkrouterd-agent.socket`, `FileDescriptorName=agent`), if it was started so.
    private let activated: Int32?

    init(loop: EventLoop, path: String?, activated: Int32? = nil) {
        self.loop = loop
        self.path = path
        self.activated = activated
    }

    /// Listens at `path`: on the socket systemd passed, else on one of its own.
    func start() throws(SystemError) {
        guard let path else { return }
        let l: UnixListener
        if let activated {
            l = try UnixListener(adopting: activated, path: path)
        } else {
            l = try UnixListener(path: path)
        }
        listener = l
        listening = loop.watch(l.fd, for: .readable) { [unowned self] _ in acceptAll(l, forward: nil) }
    }

    func stop() {
        if let listening { loop.remove(listening) }
        listener?.close()
        listener = nil
        for path in forwards.keys.sorted() { closeForward(path) }
        for name in connections.keys.sorted() { close(name) }
    }

    /// `Effect.openForward`: the forward's own socket, listening.
    func open(_ forward: AgentForward) throws(RouterError) {
        let l: UnixListener
        do { l = try UnixListener(path: forward.path, backlog: 64) } catch {
            throw RouterError(.internalError, "the forward's socket could not be made: \(error)")
        }
        let source = loop.watch(l.fd, for: .readable) { [unowned self] _ in acceptAll(l, forward: forward) }
        forwards[forward.path] = (forward, l, source)
        onLog?(
            .info,
            "Forwarding the agent to \(forward.host) for \(forward.accounts.joined(separator: ", "))\(forward.unconfirmed ? ", unconfirmed" : "") at \(forward.path)"
        )
    }

    /// `Effect.closeForwards`: the forwards `owner` made, gone with it (their connections finish their request).
    func closeForwards(of owner: String) {
        for (path, f) in forwards where f.forward.owner == owner { closeForward(path) }
    }

    private func closeForward(_ path: String) {
        guard let f = forwards.removeValue(forKey: path) else { return }
        loop.remove(f.source)
        f.listener.close()
        onLog?(.info, "The agent's forward to \(f.forward.host) is closed")
    }

    /// The peer of the connection named `name`, as the kernel gave it, and the forward it came through, or nil when
    /// `name` is not one of these.
    func peer(_ name: String) -> (
        credentials: UnixConnection.PeerCredentials?, acceptedAt: Int64, exited: Bool, forward: AgentForward?
    )? {
        guard let c = connections[name] else { return nil }
        return (c.socket.peer, c.socket.acceptedAt, c.socket.peerExited, c.forward)
    }

    /// `Effect.answer` for a request held here; false when `op` is not one (it is the bus's).
    func answer(_ op: OperationID, _ reply: Transition.Reply) -> Bool {
        guard let name = held.removeValue(forKey: op) else { return false }
        guard let c = connections[name], case .waiting(let request) = c.phase else { return true }
        respond(c, shown(answer(reply, to: request), request, c))
        return true
    }

    /// `Effect.forget` for a request held here; false when `op` is not one.
    func forget(_ op: OperationID) -> Bool { held.removeValue(forKey: op) != nil }

    /// The core's reply in the request's terms: oidc-agent's, or linkrouter's own `GetToken` in JSON.
    private func answer(_ reply: Transition.Reply, to request: AgentRequest) -> JSONValue {
        if case .getToken = request { return AgentReplyJSON.json(reply) }
        return AgentAnswer.json(reply, to: request)
    }

    /// What a connection hears: through a forward, `loaded_accounts` names the forward's accounts only.
    private func shown(_ answer: JSONValue, _ request: AgentRequest, _ c: AgentConnection) -> JSONValue {
        guard let forward = c.forward else { return answer }
        switch request {
        case .loadedAccounts, .accountInfo: return forward.shown(answer)
        case .token, .getToken: return answer
        }
    }

    private func acceptAll(_ listener: UnixListener, forward: AgentForward?) {
        while connections.count < Self.maxConnections {
            let socket: UnixConnection?
            do { socket = try listener.accept() } catch {
                onLog?(.warning, "The agent socket could not take a connection: \(error)")
                return
            }
            guard let socket else { return }
            accepted += 1
            let c = AgentConnection(name: "agent:\(accepted)", socket: socket, forward: forward)
            guard let peer = socket.peer, peer.uid == uid else {
                // oidc-agent serves any uid that reaches its socket; linkrouter only its own user's processes.
                onLog?(
                    .warning,
                    "Refused an agent connection from uid \(socket.peer.map { String($0.uid) } ?? "unknown") (pid \(socket.peer.map { String($0.pid) } ?? "unknown")): the agent serves only uid \(uid)"
                )
                refuse(
                    c,
                    AgentRefusal.failure("operation forbidden", info: "linkrouterd serves only its own user's programs")
                )
                continue
            }
            connections[c.name] = c
            c.source = loop.watch(socket.fd, for: .readable) { [unowned self] events in ready(c.name, events) }
            c.timer = loop.schedule(afterMilliseconds: Self.deadlineMilliseconds) { [unowned self] in
                timedOut(c.name)
            }
        }
        // At the limit, the rest wait in the kernel's backlog (their `connect` blocks) until one closes.
        if connections.count >= Self.maxConnections { pause(true) }
    }

    /// Every listener stops (or starts again) taking connections.
    private func pause(_ paused: Bool) {
        let events: EventLoop.Events = paused ? [] : .readable
        if let listening { loop.update(listening, events: events) }
        for f in forwards.values { loop.update(f.source, events: events) }
    }

    /// A connection refused before it is served: told why (plain JSON, which every client reads), then closed
    /// once what it sent so far is read (nothing is kept for it).
    private func refuse(_ c: AgentConnection, _ refusal: AgentRefusal) {
        let bytes = c.answerBytes(refusal.json)
        _ = try? c.socket.write(bytes[...])
        c.socket.shutdownWrites()
        _ = c.socket.discardWaiting()
        c.socket.close()
    }

    private func ready(_ name: String, _ events: EventLoop.Events) {
        guard let c = connections[name] else { return }
        switch c.phase {
        case .reading: read(c)
        case .waiting:
            // Nothing more is read; a client that hangs up while the core works is forgotten.
            if events.contains(.hangup) || events.contains(.error) || (try? c.socket.read(max: 1)) == .closed {
                close(name)
            }
        case .writing: write(c)
        case .draining: if c.socket.discardWaiting() { close(name) }
        }
    }

    private func read(_ c: AgentConnection) {
        let room = AgentFrame.maxBytes + 1 - c.buffer.count
        let got: UnixConnection.Read
        do { got = try c.socket.read(max: max(room, 1)) } catch { return close(c.name) }
        switch got {
        case .wouldBlock: return
        case .closed: return close(c.name)
        case .bytes(let b): c.buffer += b
        }
        guard c.buffer.count <= AgentFrame.maxBytes else {
            return respond(c, AgentRefusal.badRequest("the request is larger than \(AgentFrame.maxBytes) bytes").json)
        }
        switch AgentFrame.classify(c.buffer, afterKeyExchange: c.box != nil) {
        case .incomplete: return
        case .malformed(let why): respond(c, AgentRefusal.badRequest(why).json)
        case .publicKey(let text): exchangeKeys(c, text)
        case .json: request(c, c.buffer)
        case .sealed(_, let nonce, let box): opened(c, nonce: nonce, box: box)
        }
    }

    /// The client's public key: this connection's own pair made, its public key sent (44 characters, one write).
    private func exchangeKeys(_ c: AgentConnection, _ text: String) {
        do throws(SodiumError) {
            let client = try Base64.decode(text[...], maxBytes: BoxKeyPair.publicKeyBytes)
            guard client.count == BoxKeyPair.publicKeyBytes else { throw .malformed("a public key is 32 bytes") }
            let keys = try BoxKeyPair()
            let mine = Array(try Base64.encode(keys.publicKey).utf8)
            c.box = (keys, client)
            c.buffer = []
            guard (try? c.socket.write(mine[...])) == mine.count else { return close(c.name) }
        } catch {
            respond(
                c, AgentRefusal.failure("internal error: ipc encrypted message malformed", info: error.description).json
            )
        }
    }

    private func opened(_ c: AgentConnection, nonce: String, box: String) {
        guard let keys = c.box else { return close(c.name) }
        let plain: [UInt8]
        do throws(SodiumError) {
            let n = try Base64.decode(nonce[...], maxBytes: BoxKeyPair.nonceBytes)
            let sealed = try Base64.decode(box[...], maxBytes: AgentFrame.maxBytes)
            plain = try keys.keys.open(sealed, nonce: n, from: keys.client)
        } catch {
            // oidc-agent's words, in plain JSON (the client reads a plain answer too).
            return respond(c, AgentRefusal.failure("decryption failed", info: error.description).json)
        }
        c.sealed = true
        request(c, plain)
    }

    private func request(_ c: AgentConnection, _ bytes: [UInt8]) {
        if let timer = c.timer { loop.cancel(timer) }
        c.timer = nil
        let parsed: AgentRequest
        do {
            let value = try JSONParser.parse(bytes, limits: .init(maxBytes: AgentFrame.maxBytes))
            parsed = try AgentRequest.parse(value)
        } catch let e as AgentRefusal {
            return respond(c, e.json)
        } catch {
            return respond(c, AgentRefusal.badRequest("could not parse json (\(error))").json)
        }
        c.buffer = []
        c.phase = .waiting(parsed)
        c.asked = true
        guard let decided = onRequest?(c.name, parsed, c.forward) else { return close(c.name) }
        switch decided {
        case .failure(let refusal): respond(c, refusal.json)
        case .success(.held(let op)): held[op] = c.name
        case .success(let reply):
            if connections[c.name] != nil { respond(c, shown(answer(reply, to: parsed), parsed, c)) }
        }
    }

    /// The answer, written now or as the socket takes it; then the connection closes.
    private func respond(_ c: AgentConnection, _ answer: JSONValue) {
        c.phase = .writing(c.answerBytes(answer), sent: 0)
        if let timer = c.timer { loop.cancel(timer) }
        c.timer = loop.schedule(afterMilliseconds: Self.deadlineMilliseconds) { [unowned self] in timedOut(c.name) }
        write(c)
    }

    private func write(_ c: AgentConnection) {
        guard case .writing(let bytes, let sent) = c.phase else { return }
        let n: Int
        do { n = try c.socket.write(bytes[sent...]) } catch { return close(c.name) }
        guard sent + n == bytes.count else {
            c.phase = .writing(bytes, sent: sent + n)
            if let source = c.source { loop.update(source, events: .writable) }
            return
        }
        c.phase = .draining
        c.socket.shutdownWrites()
        if c.socket.discardWaiting() { return close(c.name) }
        if let source = c.source { loop.update(source, events: .readable) }
        // The deadline `respond` set still stands: a client that keeps sending is closed then.
    }

    private func timedOut(_ name: String) {
        guard let c = connections[name] else { return }
        c.timer = nil
        if case .reading = c.phase {
            onLog?(
                .info,
                "An agent client (pid \(c.socket.peer?.pid ?? 0)) sent no whole request in \(Self.deadlineMilliseconds / 1000) s; closed"
            )
        }
        close(name)
    }

    private func close(_ name: String) {
        guard let c = connections.removeValue(forKey: name) else { return }
        if connections.count == Self.maxConnections - 1 { pause(false) }
        if let source = c.source { loop.remove(source) }
        if let timer = c.timer { loop.cancel(timer) }
        c.socket.close()
        // The core knows it once it asked: its caller entry goes, and a request still held is forgotten by the
        // `.forget` that comes back for it (`forget`).
        if c.asked { onGone?(name) }
    }
}
