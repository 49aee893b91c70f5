import DBusKit
import SystemKit
import Testing

extension Harness {
    /// Everything a refusal must leave as it was: every session's status and
    /// the browsers the daemon started. The daemon counts a start before it
    /// answers (`browsers_started`), so the count cannot miss one that a
    /// stand-in browser has not recorded yet.
    struct Snapshot: Equatable {
        let sessions: [String: String]
        let browsersStarted: UInt64
    }

    func snapshot() throws -> Snapshot {
        Snapshot(
            sessions: Dictionary(uniqueKeysWithValues: try app.allSessions().map { ($0.path, $0.status) }),
            browsersStarted: try app.counter("browsers_started"))
    }

    /// Runs `body`, expects the D-Bus error `name`, and checks that nothing
    /// changed and the daemon still answers. Returns the error's message.
    @discardableResult
    func expectRefusal(_ name: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void)
        throws -> String
    {
        let before = try snapshot()
        let e = dbusError(body)
        #expect(e?.name == name, "got \(e?.description ?? "no error")", sourceLocation: sourceLocation)
        #expect(try snapshot() == before, "a refusal changed something", sourceLocation: sourceLocation)
        #expect(daemonAnswers, "the daemon stopped answering", sourceLocation: sourceLocation)
        return e?.message ?? ""
    }
}

let errorPrefix = "org.linkrouter.LinkRouter1.Error."
let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
