import DBusKit
import Glibc
import LinkRouterAPI
import SystemKit

/// Issue 23's device-grant figures: a `linkctl login NAME --device` at
/// Glewlwyd (a poll a second) that the phone approves after N polls; the
/// daemon's CPU while it polls beside the same daemon idle for as long; and,
/// under callgrind, the daemon's instructions per poll.
extension Bench {
    func deviceLogin() throws {
        say("device: polling")
        guard let world = try accountWorld("device", providerOptions: ["--device", "600"]) else { return }
        defer { withExtendedLifetime(world) {} }
        let (w, provider) = (world.w, world.provider)
        try world.add("work", bin: bin)
        let polls = n(10, 2)
        let probe = try DBusConnection(address: w.address)
        func cpu() throws -> Double {
            // utime + stime, fields 14 and 15 of /proc/PID/stat (after the name in parentheses), in clock ticks.
            let stat = try FileSystem.readText("/proc/\(w.daemonPID)/stat")
            let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
            return (Double(fields[11])! + Double(fields[12])!) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
        // The floor: the same daemon, idle, for as long as the polling will take (one poll a second).
        let idleStart = try cpu()
        Clock.sleep(milliseconds: polls * 1000)
        let idle = try cpu() - idleStart
        let login = try startDeviceLogin(w)
        // From the first poll on: the discovery, the device request and libcurl's first use are behind it.
        func polled(_ count: UInt64, within ms: Int) -> Bool {
            w.wait({ ((try? self.counter(probe, "device_polls")) ?? 0) >= count }, milliseconds: ms)
        }
        guard polled(1, within: 30_000) else { throw BenchError("the daemon did not poll") }
        // The window is slept through: asking the daemon's counters meanwhile would be work it does for the bench.
        let first = try counter(probe, "device_polls")
        let busyStart = try cpu()
        Clock.sleep(milliseconds: polls * 1000)
        let busy = try cpu() - busyStart
        let pollsSeen = try counter(probe, "device_polls") - first
        try approve(w, provider: provider, login: login)
        row(
            "linkrouterd's CPU time for \(polls) s of a device login at Glewlwyd after its first poll (a poll a second: \(pollsSeen) polls), beside the same daemon idle as long",
            value: busy, unit: "ms", floor: idle, goal: "≈ idle (a few ms)", met: busy - idle <= 5 * Double(polls))
        w.stopDaemon()
        guard FileSystem.findExecutable("valgrind") != nil else {
            notes.append("valgrind is not installed: no instructions per device poll")
            return
        }
        _ = try w.run([bin + "/linkctl", "logout", "work"])
        let daemon = try CallgrindDaemon(w, bin: bin, name: "device")
        let again = try startDeviceLogin(w)
        guard polled(1, within: 60_000) else { throw BenchError("the daemon under callgrind did not poll") }
        let before = try counter(probe, "device_polls")
        try daemon.zero()
        Clock.sleep(milliseconds: polls * 1000 + 500)
        let perPollTotal = try daemon.dump("polls")
        let counted = try counter(probe, "device_polls") - before
        guard counted > 0 else { throw BenchError("the daemon under callgrind did not poll") }
        let perPoll = perPollTotal / Double(counted)
        try approve(w, provider: provider, login: again)
        row(
            "instructions in the daemon per device-grant poll that is answered authorization_pending (the timer, the request, the answer)",
            value: perPoll / 1000,
            unit: "k", floor: nil, goal: "a count to watch", met: nil)
    }

    /// `linkctl login work --device` started: its pid, and where its stderr goes.
    private func startDeviceLogin(_ w: BenchWorld) throws -> (pid: Int32, err: String) {
        let err = w.root + "/device-\(Clock.monotonicMilliseconds()).err"
        let pid = try Subprocess.spawn(
            [bin + "/linkctl", "login", "work", "--device", "--timeout", "600000"], environment: w.environment,
            stdout: .null, stderr: .file(err))
        return (pid, err)
    }

    /// The phone's approval (the tests' `glewlwyd_signin.py --user-code`), then the login's end.
    private func approve(_ w: BenchWorld, provider: BenchProvider, login: (pid: Int32, err: String)) throws {
        var page = ""
        var code = ""
        _ = w.wait(
            {
                let lines = ((try? FileSystem.readText(login.err)) ?? "").split(separator: "\n").map {
                    String($0.drop { $0 == " " })
                }
                guard let p = lines.firstIndex(where: { $0.hasPrefix("To sign in, open this page") }),
                    let c = lines.firstIndex(of: "and enter the code:"),
                    p + 1 < lines.count, c + 1 < lines.count
                else { return false }
                (page, code) = (lines[p + 1], lines[c + 1])
                return true
            }, milliseconds: 30_000)
        guard !code.isEmpty else {
            throw BenchError("linkctl login --device showed no code: \((try? FileSystem.readText(login.err)) ?? "")")
        }
        let approval = try w.run([
            "/usr/bin/python3", fixtures + "/glewlwyd_signin.py", "--provider", provider.infoPath, "--url", page,
            "--user-code", code,
        ])
        guard approval.status == 0 else { throw BenchError("the approval failed: \(approval.errorText)") }
        guard Subprocess.wait(login.pid, timeoutMilliseconds: 120_000) == 0 else {
            throw BenchError("the device login failed: \((try? FileSystem.readText(login.err)) ?? "")")
        }
    }
}
