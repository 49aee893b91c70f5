import DBusKit
import Glibc
import SecretKit
import SecretServiceTesting
import SystemKit
import Testing

/// A bus of the test's own (no service directory: nothing on the machine is
/// activated), with a real `gnome-keyring-daemon` on it when asked, as
/// `../shared/reference/secret-service.md` measured: `--unlock` with the
/// password on stdin makes and unlocks the `login` collection, the `default`
/// alias names it.
final class KeyringBus {
    let dir = TemporaryDirectory("lr-keyring")
    let address: String
    private let busPID: Int32
    let client: DBusConnection
    /// The keyring on it, when asked for.
    let keyring: GnomeKeyring?

    init(keyring withKeyring: Bool) throws {
        let root = dir.path
        address = "unix:path=" + root + "/bus"
        try FileSystem.writeAtomically(
            root + "/bus.conf",
            text: """
                <busconfig>
                  <type>session</type>
                  <listen>\(address)</listen>
                  <servicedir>\(root)/services</servicedir>
                  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
                </busconfig>
                """, permissions: 0o600)
        try FileSystem.makeDirectories(root + "/services", permissions: 0o700)
        busPID = try Subprocess.spawn(
            ["dbus-daemon", "--nofork", "--nopidfile", "--config-file=" + root + "/bus.conf"], stdout: .null,
            stderr: .null)
        var connected: DBusConnection?
        let deadline = Clock.monotonicMilliseconds() + 5000
        while connected == nil && Clock.monotonicMilliseconds() < deadline {
            connected = try? DBusConnection(address: address)
            if connected == nil { Clock.sleep(milliseconds: 5) }
        }
        client = try #require(connected)
        guard withKeyring else {
            keyring = nil
            return
        }
        for d in ["/home", "/home/.local/share", "/run"] {
            try FileSystem.makeDirectories(root + d, permissions: 0o700)
        }
        keyring = try GnomeKeyring(
            busAddress: address,
            environment: [
                "DBUS_SESSION_BUS_ADDRESS=" + address, "HOME=" + root + "/home",
                "XDG_DATA_HOME=" + root + "/home/.local/share",
                "XDG_RUNTIME_DIR=" + root + "/run", "PATH=/usr/bin:/bin",
            ], directory: root)
    }

    var keyringFile: String { dir.path + "/home/.local/share/keyrings/login.keyring" }

    /// The bus and keyring daemons, in the order they started.
    var processes: [Int32] { [busPID] + (keyring.map { [$0.pid] } ?? []) }

    /// Keeps an item of linkrouter's schema through the D-Bus API itself
    /// (a `plain` session), for a keyring that libsecret in this process is not on.
    func createItem(account: String, issuer: String, secret: String) throws {
        let open = DBusMessage.methodCall(
            "org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "OpenSession")
        try open.append(.string("plain"), .variant(.string("")))
        guard case .objectPath(let session)? = try client.callArguments(open).dropFirst().first else {
            throw SystemError("no session", code: EPROTO)
        }
        let create = DBusMessage.methodCall(
            "org.freedesktop.secrets", "/org/freedesktop/secrets/aliases/default", "org.freedesktop.Secret.Collection",
            "CreateItem")
        let attributes = DBusValue.dictionary(
            key: "s", value: "s",
            [
                .init(.string("account"), .string(account)), .init(.string("issuer"), .string(issuer)),
                .init(.string("xdg:schema"), .string(SecretStore.schemaName)),
            ])
        try create.append(
            .dictionary(
                key: "s", value: "v",
                [
                    .init(.string("org.freedesktop.Secret.Item.Label"), .variant(.string("linkrouter: " + account))),
                    .init(.string("org.freedesktop.Secret.Item.Attributes"), .variant(attributes)),
                ]),
            .structure([
                .objectPath(session), .array(element: "y", []),
                .array(element: "y", Array(secret.utf8).map { .byte($0) }), .string("text/plain"),
            ]),
            .boolean(true))
        _ = try client.callArguments(create)
    }

    deinit {
        Subprocess.stop(busPID, name: "dbus-daemon")
    }
}

/// Runs the loop until `body`'s completion is called (or 60 s, a failure).
func onLoop<T>(_ body: (EventLoop, @escaping (T) -> Void) -> Void) -> T? {
    let loop = EventLoop()
    var result: T?
    body(loop) { result = $0 }
    let deadline = Clock.monotonicMilliseconds() + 60_000
    while result == nil && Clock.monotonicMilliseconds() < deadline { loop.turn(maxWaitMilliseconds: 100) }
    return result
}

/// The Secret Service through libsecret, against a real gnome-keyring: what
/// is kept reads back, an unchanged value is not written again, and locked,
/// absent and hanging services are errors of their own, never "nothing kept".
@Suite("Secret Service (libsecret, a real gnome-keyring)", .serialized)
struct SecretStoreTests {
    /// libsecret (GDBus) keeps the first session bus a process uses, so every
    /// test that reaches libsecret shares this one; the others stop before it.
    nonisolated(unsafe) static let shared: KeyringBus? = {
        guard let bus = try? KeyringBus(keyring: true) else { return nil }
        setenv("DBUS_SESSION_BUS_ADDRESS", bus.address, 1)
        // A static is never deinitialized: its bus and keyring stop when the test process exits, not after it.
        leftAtExit = (bus.processes, bus.dir.path)
        atexit {
            for pid in SecretStoreTests.leftAtExit.pids.reversed() {
                Subprocess.stop(pid, name: "a keyring process")
            }
            _ = try? Subprocess.run(["/bin/rm", "-rf", SecretStoreTests.leftAtExit.directory])
        }
        return bus
    }()
    nonisolated(unsafe) static var leftAtExit: (pids: [Int32], directory: String) = ([], "")

    static let key = SecretStore.Key(account: "work", issuer: "https://id.example.com")

    func call<T>(
        _ address: String?, deadline: Int64 = 20_000, _ body: @escaping (SecretStore, @escaping (T) -> Void) -> Void
    ) -> T? {
        var store: SecretStore?
        return onLoop { loop, done in
            let s = SecretStore(loop: loop, busAddress: address, deadlineMilliseconds: deadline)
            store = s
            body(s, done)
        }.map { value in
            _ = store
            return value
        }
    }

    @Test("kept, read back, an unchanged value not written again (the keyring file untouched), replaced, deleted")
    func roundTrip() throws {
        let bus = try #require(Self.shared, "gnome-keyring-daemon could not be started")
        let a = bus.address
        #expect(call(a) { s, done in s.read(Self.key, done) } == .success(nil))
        #expect(
            call(a) { s, done in s.write(Self.key, label: "linkrouter: work", secret: "one", done) }
                == .success(.written))
        #expect(call(a) { s, done in s.read(Self.key, done) } == .success("one"))
        let before = try #require(FileSystem.status(bus.keyringFile))
        #expect(
            call(a) { s, done in s.write(Self.key, label: "linkrouter: work", secret: "one", done) }
                == .success(.unchanged))
        #expect(FileSystem.status(bus.keyringFile)?.modifiedNanoseconds == before.modifiedNanoseconds)
        #expect(
            call(a) { s, done in s.write(Self.key, label: "linkrouter: work", secret: "two", done) }
                == .success(.written))
        #expect(FileSystem.status(bus.keyringFile)?.modifiedNanoseconds != before.modifiedNanoseconds)
        #expect(call(a) { s, done in s.read(Self.key, done) } == .success("two"))
        // Another issuer is another item.
        let other = SecretStore.Key(account: "work", issuer: "https://other.example.com")
        #expect(call(a) { s, done in s.read(other, done) } == .success(nil))
        #expect(try #require(bus.keyring).items(account: "work") == (unlocked: 1, locked: 0))
        #expect(call(a) { s, done in s.delete(Self.key, done) } == .success(true))
        #expect(call(a) { s, done in s.read(Self.key, done) } == .success(nil))
        #expect(call(a) { s, done in s.delete(Self.key, done) } == .success(false))
    }

    @Test("a locked collection is KeyringLocked on read and write, and the item it holds stays")
    func locked() throws {
        let bus = try KeyringBus(keyring: true)
        // Kept through the D-Bus API directly: libsecret in this process is on the shared bus.
        try bus.createItem(account: Self.key.account, issuer: Self.key.issuer, secret: "kept")
        #expect(try #require(bus.keyring).items(account: "work") == (unlocked: 1, locked: 0))
        try #require(bus.keyring).lockDefault()
        #expect(try #require(bus.keyring).items(account: "work") == (unlocked: 0, locked: 1))
        #expect(call(bus.address) { s, done in s.read(Self.key, done) } == .failure(.locked))
        #expect(call(bus.address) { s, done in s.write(Self.key, label: "x", secret: "y", done) } == .failure(.locked))
        #expect(call(bus.address) { s, done in s.delete(Self.key, done) } == .failure(.locked))
        #expect(try #require(bus.keyring).items(account: "work") == (unlocked: 0, locked: 1))
    }

    @Test("no Secret Service on the bus, or no bus at all: NoService, saying what to install")
    func noService() throws {
        let bus = try KeyringBus(keyring: false)
        let r = call(bus.address) { s, done in s.read(Self.key, done) }
        guard case .failure(.noService(let why))? = r else {
            Issue.record("expected noService, got \(String(describing: r))")
            return
        }
        #expect(why.contains("org.freedesktop.secrets"))
        #expect(SecretError.noService(why).description.contains("store=memory"))
        #expect(
            call(nil) { s, done in s.write(Self.key, label: "x", secret: "y", done) }
                == .failure(.noService("no session bus: DBUS_SESSION_BUS_ADDRESS is not set")))
    }

    @Test("a Secret Service that never answers: TimedOut at the deadline, and the next call is not stuck behind it")
    func hangs() throws {
        let bus = try KeyringBus(keyring: false)
        // Owns the name and never reads its messages.
        let silent = try DBusConnection(address: bus.address)
        _ = try silent.requestName("org.freedesktop.secrets")
        var store: SecretStore?
        var answers: [Result<String?, SecretError>] = []
        _ = onLoop { (loop, done: @escaping (Bool) -> Void) in
            let s = SecretStore(loop: loop, busAddress: bus.address, deadlineMilliseconds: 300)
            store = s
            s.read(Self.key) { r in
                answers.append(r)
                // The first answers at its deadline while the worker still waits;
                // the second runs after it and ends at its own deadline too.
                s.read(Self.key) { r in
                    answers.append(r)
                    done(true)
                }
            }
        }
        _ = store
        #expect(answers.count == 2)
        #expect(answers.allSatisfy { $0 == .failure(.timedOut(milliseconds: 300)) })
        _ = silent
    }
}
