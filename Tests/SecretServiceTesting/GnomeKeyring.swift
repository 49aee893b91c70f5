public import DBusKit
import Glibc
import SystemKit

/// A real `gnome-keyring-daemon` on a test's own bus, unlocked as
/// `../shared/reference/secret-service.md` measured (`--unlock` with the
/// password on stdin, every byte of it), and what tests ask of it through
/// the Secret Service's own D-Bus API: never libsecret, which a test
/// process binds to the first bus it uses. The wrapper tests and the
/// integration tests both start theirs through this one.
public final class GnomeKeyring {
    public private(set) var pid: Int32
    public let client: DBusConnection
    private let environment: [String]
    private let directory: String

    /// `environment` gives it the bus, HOME and the XDG directories (its
    /// `login` keyring goes under their data home); its password file and
    /// log go in `directory`.
    public init(busAddress: String, environment: [String], directory: String) throws {
        self.environment = environment
        self.directory = directory
        client = try DBusConnection(address: busAddress)
        pid = try Self.start(unlocked: true, environment: environment, directory: directory, client: client)
    }

    /// The keyring daemon killed and another started in its place (as when it crashed and D-Bus or systemd started
    /// it again): its login keyring is the same file, locked unless `unlocked`. No `CollectionChanged` says so to
    /// anyone who asked the old one.
    public func replace(unlocked: Bool) throws {
        kill(pid, SIGKILL)
        Subprocess.wait(pid)
        let deadline = Clock.monotonicMilliseconds() + 10_000
        while client.nameHasOwner("org.freedesktop.secrets") && Clock.monotonicMilliseconds() < deadline {
            Clock.sleep(milliseconds: 10)
        }
        pid = try Self.start(unlocked: unlocked, environment: environment, directory: directory, client: client)
    }

    private static func start(unlocked: Bool, environment: [String], directory: String, client: DBusConnection)
        throws -> Int32
    {
        let password = directory + "/keyring-password"
        try FileSystem.writeAtomically(password, text: "test-pass", permissions: 0o600)
        let log = directory + "/gnome-keyring.log"
        let unlock = unlocked ? " --unlock" : ""
        let pid = try Subprocess.spawn(
            [
                "/bin/sh", "-c",
                "exec gnome-keyring-daemon --foreground\(unlock) --components=secrets < \"$0\"", password,
            ],
            environment: environment, stdout: .file(log), stderr: .file(log))
        let deadline = Clock.monotonicMilliseconds() + 10_000
        while !client.nameHasOwner("org.freedesktop.secrets") && Clock.monotonicMilliseconds() < deadline {
            Clock.sleep(milliseconds: 10)
        }
        guard client.nameHasOwner("org.freedesktop.secrets") else {
            kill(pid, SIGKILL)
            Subprocess.wait(pid)
            throw SystemError("gnome-keyring-daemon did not take org.freedesktop.secrets", path: log, code: ETIMEDOUT)
        }
        // The name comes first; the login keyring that `--unlock` makes (the `default` alias) a moment later. Ready
        // is when the alias names it: a daemon asking before then hears "no default collection".
        while ((try? defaultCollection(client))?.rawValue ?? "/") == "/" && Clock.monotonicMilliseconds() < deadline {
            Clock.sleep(milliseconds: 10)
        }
        guard ((try? defaultCollection(client))?.rawValue ?? "/") != "/" else {
            kill(pid, SIGKILL)
            Subprocess.wait(pid)
            throw SystemError("gnome-keyring-daemon made no default collection", path: log, code: ETIMEDOUT)
        }
        return pid
    }

    /// The collection behind the `default` alias.
    private func defaultCollection() throws -> ObjectPath { try Self.defaultCollection(client) }

    private static func defaultCollection(_ client: DBusConnection) throws -> ObjectPath {
        let alias = DBusMessage.methodCall(
            "org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "ReadAlias")
        try alias.append(.string("default"))
        guard case .objectPath(let collection)? = try client.callArguments(alias).first else {
            throw SystemError("no default collection", code: ENOENT)
        }
        return collection
    }

    /// `Lock` on the default collection, as a screen locker would.
    public func lockDefault() throws {
        let collection = try defaultCollection()
        let lock = DBusMessage.methodCall(
            "org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "Lock")
        try lock.append(.array(element: "o", [.objectPath(collection)]))
        _ = try client.callArguments(lock)
    }

    /// Items whose attribute `account` is `name`: (unlocked, locked). Attributes only: no secret is read.
    /// The default collection unlocked with the password it was made with, as a person typing it into the
    /// unlock prompt would (gnome-keyring's `UnlockWithMasterPassword`, through a `plain` session on this connection).
    public func unlockDefault() throws {
        let collection = try defaultCollection()
        let open = DBusMessage.methodCall(
            "org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "OpenSession")
        try open.append(.string("plain"))
        try open.append(.variant(.string("")))
        let opened = try client.callArguments(open)
        guard opened.count == 2, case .objectPath(let session) = opened[1] else {
            throw SystemError("OpenSession answered \(opened)", code: EPROTO)
        }
        let unlock = DBusMessage.methodCall(
            "org.freedesktop.secrets", "/org/freedesktop/secrets",
            "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface", "UnlockWithMasterPassword")
        try unlock.append(.objectPath(collection))
        try unlock.append(
            .structure([
                .objectPath(session), .array(element: "y", []),
                .array(element: "y", Array("test-pass".utf8).map { .byte($0) }), .string("text/plain"),
            ]))
        _ = try client.callArguments(unlock)
    }

    public func items(account name: String) throws -> (unlocked: Int, locked: Int) {
        let search = DBusMessage.methodCall(
            "org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "SearchItems")
        try search.append(.dictionary(key: "s", value: "s", [.init(.string("account"), .string(name))]))
        let answer = try client.callArguments(search)
        func count(_ v: DBusValue?) -> Int { if case .array(_, let a)? = v { a.count } else { -1 } }
        return (count(answer.first), count(answer.dropFirst().first))
    }

    deinit {
        Subprocess.stop(pid, name: "gnome-keyring-daemon")
    }
}
