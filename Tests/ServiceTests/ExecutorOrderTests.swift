import DBusKit
import Glibc
import LinkRouterAPI
import LinkRouterCore
import SystemKit
import Testing

@testable import LinkRouterService

/// The executor's order (`Transition`'s doc comment is the one place it is
/// written), checked on the real executor and components in process: what
/// the daemon sends reaches another client on a real bus in the order it
/// was sent, and the store is a real SQLite file.
@Suite("The executor's order, in process")
struct ExecutorOrderTests {
    static let barrier = SessionID(String(repeating: "f", count: 32))!

    static func refusal(_ reply: Transition.Reply) -> RouterError.Code? {
        if case .refused(let e) = reply { e.code } else { nil }
    }

    @Test(
        "effects run by rank, not as listed: the fallible signal first, then status signals in the core's order, the notification last"
    )
    func byRank() throws {
        let w = try InProcessDaemon()
        let a = try w.begin()
        let b = try w.begin()
        _ = w.received(until: Self.barrier)
        let reply = w.daemon.execute(
            Transition(
                effects: [
                    .notify(summary: "listed first", body: "runs last"),
                    .emitStatus(b.id, .pending),
                    .emitStatus(a.id, .pending),
                    .requestResume(a.id, owner: w.watcher.uniqueName, resumeURI: "https://example.com/resume"),
                ], reply: .routed(.resumed)))
        #expect(reply == .routed(.resumed))
        let got = w.received(until: Self.barrier)
        #expect(got.map(\.member) == ["ResumeRequested", "PropertiesChanged", "PropertiesChanged", "Notify"])
        #expect(
            got.map(\.path) == [
                API.path(of: a.id).rawValue, API.path(of: b.id).rawValue, API.path(of: a.id).rawValue,
                "/org/freedesktop/Notifications",
            ])
    }

    @Test(
        "a refused write stops everything: nothing taken in, no effect, the compensation runs, the caller hears StorageFailed"
    )
    func refusedWrite() throws {
        let w = try InProcessDaemon()
        let a = try w.begin()
        let b = try w.begin()
        _ = w.received(until: Self.barrier)
        var done = a
        done.status = .completed
        let locker = try w.lockStore()
        defer {
            kill(locker, SIGKILL)
            Subprocess.wait(locker)
        }
        let reply = w.daemon.execute(
            Transition(
                changes: [.update(done)], ifWriteFails: .refuse,
                effects: [
                    .emitStatus(a.id, .completed),
                    .requestResume(a.id, owner: w.watcher.uniqueName, resumeURI: "https://example.com/resume"),
                ],
                compensation: [.emitStatus(b.id, .cancelled)], reply: .routed(.completed)))
        #expect(Self.refusal(reply) == .storageFailed, "\(reply)")
        #expect(
            w.received(until: Self.barrier).map(\.path) == [API.path(of: b.id).rawValue],
            "only the compensation was said")
        #expect(w.daemon.core.router.session(a.id)?.status == .pending)
        kill(locker, SIGKILL)
        #expect(try w.stored(a.id)?.status == .pending)
        #expect(w.daemon.sessions.writeFailures == 1)
    }

    @Test("a failed write with nobody to tell is taken in anyway and the effects run")
    func keptInMemory() throws {
        let w = try InProcessDaemon()
        let a = try w.begin()
        _ = w.received(until: Self.barrier)
        var expired = a
        expired.status = .expired
        let locker = try w.lockStore()
        defer {
            kill(locker, SIGKILL)
            Subprocess.wait(locker)
        }
        let reply = w.daemon.execute(
            Transition(changes: [.update(expired)], ifWriteFails: .keepInMemory, effects: [.emitStatus(a.id, .expired)])
        )
        #expect(reply == .none)
        #expect(w.daemon.core.router.session(a.id)?.status == .expired, "taken in")
        #expect(w.received(until: Self.barrier).map(\.path) == [API.path(of: a.id).rawValue])
        #expect(w.daemon.sessions.writeFailures == 1)
        kill(locker, SIGKILL)
        #expect(try w.stored(a.id)?.status == .pending, "the store catches up at the next write, not before")
    }

    @Test(
        "a fallible effect that fails undoes the written changes, runs the compensation, runs nothing later, and the caller hears why"
    )
    func fallibleFailure() throws {
        let w = try InProcessDaemon()
        let a = try w.begin()
        let b = try w.begin()
        _ = w.received(until: Self.barrier)
        var resumed = a
        resumed.status = .resumed
        let reply = w.daemon.execute(
            Transition(
                changes: [.update(resumed)],
                effects: [
                    .emitStatus(a.id, .resumed),
                    .openBrowser("https://example.com/next", in: .entry("linkrouter-test-no-such-browser.desktop")),
                ],
                compensation: [.emitStatus(b.id, .cancelled)], reply: .routed(.resumed)))
        #expect(Self.refusal(reply) == .browserFailed)
        #expect(w.daemon.core.router.session(a.id)?.status == .pending, "taken back in memory")
        #expect(try w.stored(a.id)?.status == .pending, "and in the store")
        #expect(
            w.received(until: Self.barrier).map(\.path) == [API.path(of: b.id).rawValue],
            "the status signal after the browser never went")
        #expect(w.daemon.launcher.browsersStarted == 0)
    }
}
