import DBusKit
import SystemKit
import Testing

extension Harness {
    /// Everything a refusal must leave as it was: every session's status and
    /// the browsers' invocations.
    struct Snapshot: Equatable {
        let sessions: [String: String]
        let browserCalls: Int
    }

    func snapshot() throws -> Snapshot {
        Snapshot(
            sessions: Dictionary(uniqueKeysWithValues: try app.allSessions().map { ($0.path, $0.status) }),
            browserCalls: desktop.invocations(Harness.browser).count)
    }

    /// Runs `body`, expects the D-Bus error `name`, and checks that nothing
    /// changed and the daemon still answers. Returns the error's message.
    @discardableResult
    func expectRefusal(_ name: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) throws -> String {
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
