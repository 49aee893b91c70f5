internal import CSecret
import DBusKit
import Synchronization
import SystemKit

/// The Secret Service as linkrouter keeps tokens in it: one item per key
/// (an account at an issuer) in the collection behind the `default` alias,
/// under linkrouter's own schema, through libsecret. The attributes name only
/// the account and the issuer (they are readable while the collection is
/// locked); the secret is the caller's text.
///
/// Every call runs on a `Worker` with a deadline (libsecret's calls can wait
/// on a prompt without limit) and answers on the loop. Each first asks the
/// Secret Service over D-Bus whether the default collection exists and is
/// unlocked: libsecret answers a lookup in a locked collection with nothing
/// and no error, which must not read as "no token". A write whose value is
/// already there is skipped (gnome-keyring rewrites its whole file on each).
public final class SecretStore {
    public struct Key: Sendable, Hashable {
        public let account: String
        public let issuer: String
        public init(account: String, issuer: String) {
            self.account = account
            self.issuer = issuer
        }
    }

    public enum WriteOutcome: Sendable, Equatable { case written, unchanged }

    /// The schema's name, stored by the Secret Service as the attribute `xdg:schema`.
    public static let schemaName = "org.linkrouter.Tokens"

    private let worker: Worker
    private let busAddress: String?
    /// How long a call may take before it is cancelled and fails with `timedOut`.
    public var deadlineMilliseconds: Int64

    /// 10 s: gnome-keyring answers in milliseconds, and a call that waits longer is a keyring that hangs. Well inside
    /// a stop's drain (`Daemon.stopDrainMilliseconds`), so a write that hangs at a stop fails in time for the set to
    /// be kept elsewhere (issue 47, case 3), and inside a caller's D-Bus timeout.
    public static let defaultDeadlineMilliseconds: Int64 = 10_000

    /// `busAddress`: the session bus the Secret Service is on (libsecret uses
    /// `DBUS_SESSION_BUS_ADDRESS`; so does this, by default).
    public init(
        loop: EventLoop, busAddress: String? = BusAddress.session(),
        deadlineMilliseconds: Int64 = SecretStore.defaultDeadlineMilliseconds
    ) {
        worker = Worker(loop: loop)
        self.busAddress = busAddress
        self.deadlineMilliseconds = deadlineMilliseconds
    }

    /// Calls queued or running.
    public var pending: Int { worker.pending }

    /// Whether the default collection can take tokens now, asked at once on this thread (`linkctl doctor`): nil when
    /// it exists and is unlocked, else why not.
    public static func defaultCollectionProblem(busAddress: String?, timeoutMilliseconds: Int32 = 5000)
        -> SecretError?
    {
        CollectionCheck.problem(
            address: busAddress, timeoutMilliseconds: timeoutMilliseconds, deadline: Int64(timeoutMilliseconds))
    }

    /// The secret kept for `key`, or nil when there is none.
    public func read(_ key: Key, _ completion: @escaping (Result<String?, SecretError>) -> Void) {
        run(.read(key)) { completion($0.map { if case .secret(let s) = $0 { s } else { nil } }) }
    }

    /// Keeps `secret` for `key` (replacing what was there), unless it is already what is kept.
    public func write(
        _ key: Key, label: String, secret: String, _ completion: @escaping (Result<WriteOutcome, SecretError>) -> Void
    ) {
        run(.write(key, label: label, secret: secret)) {
            completion($0.map { if case .written(let w) = $0 { w } else { .written } })
        }
    }

    /// Forgets what is kept for `key`; whether there was something.
    public func delete(_ key: Key, _ completion: @escaping (Result<Bool, SecretError>) -> Void) {
        run(.delete(key)) { completion($0.map { if case .deleted(let d) = $0 { d } else { false } }) }
    }

    /// What the Secret Service did when asked to unlock: showed its prompt, or had nothing to unlock.
    public enum UnlockOutcome: Sendable, Equatable { case prompted, alreadyUnlocked }

    /// Asks the Secret Service to unlock the default collection (`CollectionUnlock`): its own dialog
    /// shows; the person's answer is not waited for (`CollectionChanged` tells it).
    public func unlock(_ completion: @escaping (Result<UnlockOutcome, SecretError>) -> Void) {
        let address = busAddress
        let deadline = deadlineMilliseconds
        let job: @Sendable () -> Result<UnlockOutcome, SecretError> = {
            CollectionUnlock.ask(address: address, timeoutMilliseconds: Int32(clamping: deadline), deadline: deadline)
        }
        let nothingToCancel: @Sendable () -> Void = {}
        worker.run(deadlineMilliseconds: deadline, cancel: nothingToCancel, job) {
            (result: Result<UnlockOutcome, SecretError>?) in
            completion(result ?? .failure(.timedOut(milliseconds: deadline)))
        }
    }

    enum Request: Sendable {
        case read(Key)
        case write(Key, label: String, secret: String)
        case delete(Key)
    }

    enum Answer: Sendable {
        case secret(String?)
        case written(WriteOutcome)
        case deleted(Bool)
    }

    private func run(_ request: Request, _ completion: @escaping (Result<Answer, SecretError>) -> Void) {
        let slot = CancelSlot()
        let address = busAddress
        let deadline = deadlineMilliseconds
        // Counted from now: a job queued behind a slow one gets only what is left.
        let deadlineAt = Clock.monotonicMilliseconds() + deadline
        let job: @Sendable () -> Result<Answer, SecretError> = {
            Self.perform(request, address: address, deadline: deadline, until: deadlineAt, slot: slot)
        }
        let cancel: @Sendable () -> Void = { slot.cancel() }
        worker.run(deadlineMilliseconds: deadline, cancel: cancel, job) { (result: Result<Answer, SecretError>?) in
            completion(result ?? .failure(.timedOut(milliseconds: deadline)))
        }
    }

    // MARK: On the worker

    private static func perform(
        _ request: Request, address: String?, deadline: Int64, until deadlineAt: Int64, slot: CancelSlot
    ) -> Result<Answer, SecretError> {
        let lib: LibSecret
        switch LibSecret.shared {
        case .success(let l): lib = l
        case .failure(let e): return .failure(e)
        }
        // Already answered on the loop (its deadline passed while it was queued): nothing to do.
        let left = deadlineAt - Clock.monotonicMilliseconds()
        guard left > 0, !slot.isCancelled else { return .failure(.timedOut(milliseconds: deadline)) }
        if let problem = CollectionCheck.problem(
            address: address, timeoutMilliseconds: Int32(clamping: left), deadline: deadline)
        {
            return .failure(problem)
        }
        guard let cancellable = slot.begin(lib) else { return .failure(.timedOut(milliseconds: deadline)) }
        let schema = lib.schema(schemaName, attributes: ["account", "issuer"])
        defer { lr_call1(lib.schemaUnref, schema) }
        func attributes(_ key: Key) -> UnsafeMutableRawPointer {
            lib.table([("account", key.account), ("issuer", key.issuer)])
        }
        func failure(_ error: UnsafeMutablePointer<lr_gerror>) -> SecretError {
            let (message, cancelled) = lib.take(error)
            return cancelled ? .timedOut(milliseconds: deadline) : .failed(message)
        }
        func lookup(_ key: Key) -> Result<String?, SecretError> {
            let attrs = attributes(key)
            defer { lr_call1(lib.hashUnref, attrs) }
            var error: UnsafeMutablePointer<lr_gerror>?
            let found = lr_lookupv(lib.lookupv, schema, attrs, cancellable.raw, &error)
            if let error { return .failure(failure(error)) }
            guard let found else { return .success(nil) }
            defer { lr_call1(lib.passwordFree, found) }
            return .success(String(cString: found))
        }
        switch request {
        case .read(let key):
            return lookup(key).map { .secret($0) }
        case .write(let key, let label, let secret):
            switch lookup(key) {
            case .failure(let e): return .failure(e)
            case .success(let current) where current == secret: return .success(.written(.unchanged))
            case .success: break
            }
            let attrs = attributes(key)
            defer { lr_call1(lib.hashUnref, attrs) }
            var error: UnsafeMutablePointer<lr_gerror>?
            let ok = lr_storev(lib.storev, schema, attrs, "default", label, secret, cancellable.raw, &error)
            if let error { return .failure(failure(error)) }
            return ok != 0 ? .success(.written(.written)) : .failure(.failed("the item was not stored"))
        case .delete(let key):
            let attrs = attributes(key)
            defer { lr_call1(lib.hashUnref, attrs) }
            var error: UnsafeMutablePointer<lr_gerror>?
            let removed = lr_clearv(lib.clearv, schema, attrs, cancellable.raw, &error)
            if let error { return .failure(failure(error)) }
            return .success(.deleted(removed != 0))
        }
    }
}

/// The `GCancellable` of one call, made on the worker when the call starts;
/// the loop may cancel before that (then the call does not start) or during.
final class CancelSlot: Sendable {
    private let state = Mutex<(cancelled: Bool, cancellable: Cancellable?)>((false, nil))

    /// The call's cancellable, or nil when the loop already cancelled it.
    func begin(_ lib: LibSecret) -> Cancellable? {
        state.withLock { s in
            guard !s.cancelled else { return nil }
            let c = Cancellable(lib)
            s.cancellable = c
            return c
        }
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        let c = state.withLock { s in
            s.cancelled = true
            return s.cancellable
        }
        c?.cancel()
    }
}
