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
    public let pid: Int32
    public let client: DBusConnection

    /// `environment` gives it the bus, HOME and the XDG directories (its
    /// `login` keyring goes under their data home); its password file and
    /// log go in `directory`.
    public init(busAddress: String, environment: [String], directory: String) throws {
        let password = directory + "/keyring-password"
        try FileSystem.writeAtomically(password, text: "test-pass", permissions: 0o600)
        let log = directory + "/gnome-keyring.log"
        pid = try Subprocess.spawn(
            [
                "/bin/sh", "-c", "exec gnome-keyring-daemon --foreground --unlock --components=secrets < \"$0\"",
                password,
            ],
            environment: environment, stdout: .file(log), stderr: .file(log))
        client = try DBusConnection(address: busAddress)
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
        while ((try? defaultCollection())?.rawValue ?? "/") == "/" && Clock.monotonicMilliseconds() < deadline {
            Clock.sleep(milliseconds: 10)
        }
        guard ((try? defaultCollection())?.rawValue ?? "/") != "/" else {
            kill(pid, SIGKILL)
            Subprocess.wait(pid)
            throw SystemError("gnome-keyring-daemon made no default collection", path: log, code: ETIMEDOUT)
        }
    }

    /// The collection behind the `default` alias.
    private func defaultCollection() throws -> ObjectPath {
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
