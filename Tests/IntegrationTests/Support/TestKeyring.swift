import DBusKit
import Glibc
import SystemKit

/// A real `gnome-keyring-daemon` on the test's own bus, with the desktop's
/// HOME and XDG directories (its `login` keyring under the test's data
/// home), unlocked as `../shared/reference/secret-service.md` measured:
/// `--unlock` with the password on stdin, every byte of it.
final class TestKeyring {
    let pid: Int32
    let client: DBusConnection

    init(desktop: TestDesktop) throws {
        let password = desktop.root + "/keyring-password"
        try FileSystem.writeAtomically(password, text: "test-pass", permissions: 0o600)
        let log = desktop.root + "/gnome-keyring.log"
        pid = try Subprocess.spawn(
            ["/bin/sh", "-c", "exec gnome-keyring-daemon --foreground --unlock --components=secrets < \"$0\"", password],
            environment: desktop.environment, stdout: .file(log), stderr: .file(log))
        client = try DBusConnection(address: desktop.busAddress!)
        let c = client
        guard eventually(timeoutMilliseconds: 10_000, { Self.hasOwner(c, "org.freedesktop.secrets") }) else {
            kill(pid, SIGKILL)
            throw SystemError("gnome-keyring-daemon did not take org.freedesktop.secrets", path: log, code: ETIMEDOUT)
        }
    }

    static func hasOwner(_ c: DBusConnection, _ name: String) -> Bool {
        let m = DBusMessage.methodCall("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner")
        try? m.append(.string(name))
        if case .boolean(true)? = try? c.callArguments(m).first { return true }
        return false
    }

    /// `Lock` on the default collection, as a screen locker would.
    func lockDefault() throws {
        let alias = DBusMessage.methodCall("org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "ReadAlias")
        try alias.append(.string("default"))
        guard case .objectPath(let collection)? = try client.callArguments(alias).first else { throw SystemError("no default collection", code: ENOENT) }
        let lock = DBusMessage.methodCall("org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "Lock")
        try lock.append(.array(element: "o", [.objectPath(collection)]))
        _ = try client.callArguments(lock)
    }

    /// Items whose attribute `account` is `name`: (unlocked, locked). Attributes only: no secret is read.
    func items(account name: String) throws -> (unlocked: Int, locked: Int) {
        let search = DBusMessage.methodCall("org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "SearchItems")
        try search.append(.dictionary(key: "s", value: "s", [.init(.string("account"), .string(name))]))
        let answer = try client.callArguments(search)
        func count(_ v: DBusValue?) -> Int { if case .array(_, let a)? = v { a.count } else { -1 } }
        return (count(answer.first), count(answer.dropFirst().first))
    }

    deinit {
        kill(pid, SIGTERM)
        Subprocess.wait(pid)
    }
}
