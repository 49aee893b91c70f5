import DBusKit
import Glibc
import LinkRouterAPI
import SystemKit

/// The soak (issue 13 §5): a desktop daemon runs for weeks, so a million
/// sessions go through one daemon, begun and completed, cancelled or left to
/// expire, and what it holds is read at the start, every 100,000 and at the
/// end: resident memory, open descriptors, the store's size on disk.
extension Bench {
    struct Reading {
        let rss: Double
        let fds: Int
        let storeKiB: Double
        let held: Int
    }

    func soak() throws {
        say("soak: one million sessions through one daemon")
        let w = try world("soak")
        // Short lives, so the table stays small and every session is purged within seconds;
        // what is measured is what a session leaves behind once it is gone.
        try w.startDaemon(["--grace-period", "2"])
        let probe = try BenchClient(w.address)
        func reading() throws -> Reading {
            let store = w.runtime + "/linkrouter/sessions.sqlite3"
            let bytes = ["", "-wal"].compactMap { FileSystem.status(store + $0)?.size }.reduce(0, +)
            let held: Int
            if case .array(_, let items)? = try probe.call("ListAllSessions").first {
                held = items.count
            } else {
                held = -1
            }
            return Reading(
                rss: rss(w.daemonPID), fds: FileSystem.list("/proc/\(w.daemonPID)/fd").count,
                storeKiB: Double(bytes) / 1024, held: held)
        }
        /// Everything begun has expired, been purged and folded out of the WAL.
        func settle() throws {
            guard w.wait({ ((try? reading())?.held ?? 1) == 0 }, milliseconds: 60_000) else {
                throw BenchError("sessions were not purged")
            }
            let wal = w.runtime + "/linkrouter/sessions.sqlite3-wal"
            _ = w.wait({ (FileSystem.status(wal)?.size ?? 0) == 0 }, milliseconds: 10_000)
        }
        // Fresh: the daemon as started, before any session. Idle: the same
        // daemon at rest after its first few sessions, once they are purged:
        // the first session touches code that stays mapped (libcrypto's random
        // generator and digests, about 2 MiB of shared, clean library pages),
        // which is the daemon's working size, not something sessions left behind.
        Clock.sleep(milliseconds: 300)
        let fresh = try reading()
        try run(w, sessions: 400)
        try settle()
        let idle = try reading()
        // LINKROUTER_SOAK_SMAPS=DIR keeps the daemon's memory map at idle and at the end, to see what grew.
        func keepMap(_ name: String) {
            if let d = Environment.nonEmpty("LINKROUTER_SOAK_SMAPS") {
                _ = try? Subprocess.run(["/bin/cp", "/proc/\(w.daemonPID)/smaps", "\(d)/\(name).smaps"])
            }
        }
        keepMap("idle")
        var readings: [(label: String, Reading)] = [
            ("as started", fresh), ("idle: after 400 warm-up sessions, purged", idle),
        ]
        // LINKROUTER_SOAK_SESSIONS: a shorter (or longer) soak, for looking into a figure.
        let total = Environment.nonEmpty("LINKROUTER_SOAK_SESSIONS").flatMap { Int($0) } ?? n(1_000_000, 3_000)
        let step = max(total / 10, 1)
        let t0 = Measure.now()
        var done = 0
        while done < total {
            try run(w, sessions: step)
            done += step
            let r = try reading()
            readings.append((String(done), r))
            say(
                "soak: \(done) sessions, RSS \(Measure.format(r.rss)) MiB, \(r.fds) fds, store \(Measure.format(r.storeKiB)) KiB, \(r.held) held"
            )
        }
        let seconds = Double(Measure.now() - t0) / 1e9
        try settle()
        let end = try reading()
        keepMap("end")
        readings.append(("\(total), all purged", end))
        row(
            "soak: resident memory after \(total) sessions, all purged", value: end.rss, unit: "MiB", floor: idle.rss,
            goal: "≤ idle + 2 MiB", met: smoke ? nil : end.rss <= idle.rss + 2)
        row(
            "soak: resident memory of the daemon as started, before its first session (for comparison)",
            value: fresh.rss, unit: "MiB",
            floor: nil, goal: "—", met: nil)
        row(
            "soak: open descriptors after \(total) sessions", value: Double(end.fds), unit: "", floor: Double(idle.fds),
            goal: "flat", met: end.fds <= idle.fds)
        row(
            "soak: store on disk (database and WAL) after \(total) sessions", value: end.storeKiB, unit: "KiB",
            floor: idle.storeKiB,
            goal: "back to idle", met: end.storeKiB <= idle.storeKiB)
        row(
            "soak: sessions per second, 4 clients (begin + complete/cancel/expire)", value: Double(total) / seconds,
            unit: "/s", floor: nil,
            goal: "(the soak's own pace)", met: nil)
        var table =
            "Soak readings (sessions begun so far; one third completed, acknowledged; one third cancelled; one third left to expire):\n\n"
        table += "| sessions | RSS (MiB) | descriptors | store (KiB) | sessions held |\n|---|---|---|---|---|\n"
        for (label, r) in readings {
            table += "| \(label) | \(Measure.format(r.rss)) | \(r.fds) | \(Measure.format(r.storeKiB)) | \(r.held) |\n"
        }
        notes.append(table)
        w.stopDaemon()
    }

    /// `sessions` sessions through 4 worker processes at once.
    private func run(_ w: BenchWorld, sessions: Int) throws {
        let me = FileSystem.executablePath()
        let per = sessions / 4
        let pids = try (0..<4).map { _ in
            try Subprocess.spawn(
                [me, "soak-worker", w.address, String(per)], environment: w.environment, stdout: .null, stderr: .inherit
            )
        }
        for p in pids { guard Subprocess.wait(p) == 0 else { throw BenchError("a soak worker failed") } }
    }
}

/// One soak client: `count` sessions of five seconds each; a third completed
/// (callback, `Wait`, `Acknowledge`), a third cancelled, a third left to expire.
func soakWorker(_ address: String, _ count: Int) -> Int32 {
    guard let client = try? BenchClient(address) else { return 2 }
    for i in 0..<count {
        guard
            let r = try? client.call(
                "BeginSession",
                [
                    .vardict([
                        ("authorization_endpoint", .string("https://auth.example.com/authorize")),
                        ("client_id", .string("soak")),
                        ("redirect_uri", .string("com.example.bench:/cb")), ("open_browser", .boolean(false)),
                        ("ttl", .uint32(5)),
                    ])
                ]), case .objectPath(let path)? = r.first, let url = r.last?.stringValue,
            let state = url.split(separator: "&").first(where: { $0.hasPrefix("state=") })?.dropFirst(6)
        else { return 1 }
        // A machine busy with something else may let a 5 s session expire first: that is an expiry, not a failure.
        func ok(_ body: () throws -> Void) -> Bool {
            do {
                try body()
                return true
            } catch let e as DBusError { return e.name == API.errorPrefix + "Expired" } catch { return false }
        }
        switch i % 3 {
        case 0:
            guard ok({ _ = try client.call("Route", [.string("com.example.bench:/cb?code=c&state=" + state)]) }),
                ok({ _ = try client.call("Wait", [.uint32(1000)], path: path, interface: API.sessionInterface) }),
                ok({ _ = try client.call("Acknowledge", path: path, interface: API.sessionInterface) })
            else { return 1 }
        case 1:
            guard ok({ _ = try client.call("Cancel", path: path, interface: API.sessionInterface) }) else { return 1 }
        default:
            break
        }
    }
    return 0
}
