import Glibc
import LinkRouterAPI
import SystemKit
import Testing

/// Threat model, "Persistence and crashes" (P1–P6).
@Suite("Threat model P: persistence")
struct PersistenceThreatTests {
    var db: (Harness) -> String { { $0.desktop.runtimeDir + "/linkrouter/sessions.sqlite3" } }

    @Test(
        "P1: kill -9 between accepting a callback and delivering it: the owner gets the result after restart until it acknowledges it; a replay is refused"
    )
    func p1() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        let link = "com.example.app:/callback?code=P1&state=\(Harness.state(of: url))"
        #expect(try h.desktop.linkctl("open", "--", link).status == 0)
        h.daemon.stop(signal: SIGKILL)
        try h.restartDaemon()
        #expect(try h.desktop.linkctl("open", "--", link).status == 1)
        #expect(try h.app.wait(path)["code"] == "P1")
        // Received: the owner acknowledges, and the result is gone for good (docs/security.md, P1).
        _ = try h.app.call("Acknowledge", path: path, interface: API.sessionInterface.rawValue)
        #expect(errorName { _ = try h.app.wait(path) } == errorPrefix + "AlreadyDelivered")
    }

    @Test("P2: a torn or corrupt store is quarantined; the daemon starts empty and logs once")
    func p2() throws {
        let h = try Harness()
        _ = try h.app.beginQuiet()
        h.daemon.stop()
        let file = db(h)
        for s in ["-wal", "-shm"] { try? FileSystem.remove(file + s) }
        let bytes = try FileSystem.read(file)
        try FileSystem.writeAtomically(
            file, Array(bytes.prefix(bytes.count / 2)) + [UInt8](repeating: 0xFF, count: 512), permissions: 0o600)
        try h.restartDaemon()
        #expect(h.daemonAnswers)
        // Quarantined once: exactly one damaged store moved aside, next to a fresh one.
        let dir = FileSystem.directoryName(file)
        let aside = FileSystem.list(dir).filter {
            $0.hasPrefix(FileSystem.baseName(file) + ".corrupt-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
        }
        #expect(aside.count == 1, "\(FileSystem.list(dir))")
        #expect(
            try aside.first.map { try FileSystem.read(dir + "/" + $0).suffix(512) }
                == [UInt8](repeating: 0xFF, count: 512)[...], "the damaged bytes are kept for a look")
        #expect(try h.app.allSessions().isEmpty)
        _ = try h.app.beginQuiet()
    }

    @Test(
        "P3: a store that is a symlink, readable by others, or not private is not loaded; files are created 0600 in 0700"
    )
    func p3() throws {
        let h = try Harness()
        _ = try h.app.beginQuiet()
        h.daemon.stop()
        chmod(db(h), 0o644)
        try h.restartDaemon()
        #expect(h.daemon.log.contains("not private to this user"))
        #expect(try h.app.allSessions().isEmpty)
        #expect(FileSystem.status(db(h))?.permissions == 0o600)
        #expect(FileSystem.status(h.desktop.runtimeDir + "/linkrouter")?.permissions == 0o700)
        // A symlink in its place, to a store holding a session: not followed, not loaded, the target untouched.
        _ = try h.app.beginQuiet()
        h.daemon.stop()
        let decoy = h.desktop.root + "/decoy.sqlite3"
        try FileSystem.rename(db(h), to: decoy)
        try? FileSystem.remove(db(h) + "-wal")
        try? FileSystem.remove(db(h) + "-shm")
        let before = try FileSystem.read(decoy, maxBytes: 1 << 24)
        try FileSystem.symlink(decoy, at: db(h))
        try h.restartDaemon()
        #expect(h.daemon.log.contains("not a regular file"))
        #expect(try h.app.allSessions().isEmpty)
        #expect(try FileSystem.read(decoy, maxBytes: 1 << 24) == before)
        #expect(FileSystem.status(db(h))?.kind == .regular)
    }

    @Test(
        "P3 (another user's store): a store owned by another user is not loaded",
        .enabled(if: geteuid() == 0, "making a file another user's needs root"))
    func p3ForeignOwner() throws {
        let h = try Harness()
        _ = try h.app.beginQuiet()
        h.daemon.stop()
        try #require(chown(db(h), 65534, 65534) == 0)
        try h.restartDaemon()
        #expect(h.daemon.log.contains("not private to this user"))
        #expect(try h.app.allSessions().isEmpty)
    }

    @Test("P4: codes and verifiers leave the store once acknowledged; core dumps are off")
    func p4() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        _ = try h.app.route("com.example.app:/callback?code=P4-SECRET-CODE&state=\(Harness.state(of: url))")
        let verifier = try #require(try h.app.wait(path)["code_verifier"])
        _ = try h.app.call("Acknowledge", path: path, interface: API.sessionInterface.rawValue)
        // The kernel's view of the running daemon: a core limit of zero, soft and hard.
        let limits = try FileSystem.readText("/proc/\(h.daemon.pid)/limits")
        let core = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
        #expect(
            core.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"], "\(core)")
        // The daemon folds the WAL (TRUNCATE) soon after a wipe: wait for that, then kill it so
        // no shutdown checkpoint can help; the files must hold neither secret.
        let file = db(h)
        #expect(eventually(timeoutMilliseconds: 10_000) { FileSystem.status(file + "-wal")?.size == 0 })
        h.daemon.stop(signal: SIGKILL)
        let dump = try h.desktop.run(["sh", "-c", "cat \"$1\" \"$1-wal\" 2>/dev/null", "sh", file])
        #expect(!dump.text.contains("P4-SECRET-CODE") && !dump.text.contains(verifier))
        // PR_SET_DUMPABLE 0 is not checked: nothing observable here tells (docs/security.md, P4).
    }

    @Test("P5: stored times far ahead of the clock (a clock jump) expire the session on restore")
    func p5() throws {
        let h = try Harness()
        let (path, _) = try h.app.beginQuiet()
        h.daemon.stop()
        let r = try Subprocess.run([
            "sqlite3", db(h), "UPDATE sessions SET created_at = created_at + 86400, expires_at = expires_at + 86400",
        ])
        try #require(r.status == 0, "\(r.errorText)")
        try h.restartDaemon()
        #expect(try h.app.status(path) == "expired")
    }

    @Test("P6: a disk that cannot be written: BeginSession fails before any browser opens")
    func p6() throws {
        let desktop = try TestDesktop()
        let bus = try PrivateBus(desktop: desktop)
        try desktop.addBrowser(Harness.browser)
        let disk = try FullDisk(desktop: desktop, kilobytes: 0, log: desktop.root + "/d.log")
        let app = try BusClient(bus.address)
        #expect(eventually { DaemonProcess.nameHasOwner(app.connection) })
        #expect(errorName { _ = try app.begin(BeginSessionRefusalTests.good) } == errorPrefix + "StorageFailed")
        #expect(try app.counter("browsers_started") == 0)
        #expect(desktop.invocations(Harness.browser).isEmpty)
        #expect(app.ping())
        _ = disk
    }
}
