import DBusKit
import Glibc
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// The measurements of issue "Benchmarks in bench/", in order.
final class Bench {
    let bin: String
    let out: String
    let smoke: Bool
    var rows: [Row] = []
    var notes: [String] = []

    init(bin: String, out: String, smoke: Bool) {
        self.bin = bin
        self.out = out
        self.smoke = smoke
    }

    func n(_ full: Int, _ small: Int) -> Int { smoke ? small : full }

    func say(_ s: String) { StandardStreams.err("bench: " + s + "\n") }

    func row(
        _ figure: String, value: Double, unit: String, floor: Double?, floorUnit: String? = nil, goal: String,
        met: Bool?
    ) {
        let ratio = floor.map { Measure.format(value / $0) + "×" } ?? "—"
        rows.append(
            Row(
                figure: figure, value: Measure.format(value) + " " + unit,
                floor: floor.map { Measure.format($0) + " " + (floorUnit ?? unit) } ?? "—", ratio: ratio, goal: goal,
                met: met))
        StandardStreams.out(rows.last!.cells.joined(separator: " | ") + "\n")
    }

    func world(_ name: String) throws -> BenchWorld {
        let w = try BenchWorld(root: out + "/" + name, bin: bin)
        try w.startBus()
        return w
    }

    /// The measurements by name, in order (`--only NAME,…` runs some, for profiling by hand).
    var sections: [(String, () throws -> Void)] {
        [
            ("open", linkctlOpen), ("click", linkClick), ("passthrough", passthrough), ("scaling", routeScaling),
            ("throughput", throughput), ("cold", coldStart), ("begin", beginRate), ("instructions", instructions),
            ("deeplink", deepLinks),
            ("giodelivery", gioDelivery), ("launchers", launchers), ("realbrowser", realBrowserLogin),
            ("accounts", accounts), ("keeping", keeping), ("dpop", dpop), ("device", deviceLogin),
            ("peer", peer), ("consent", consent), ("resource", resource), ("soak", soak),
        ]
    }

    /// Measurements run only when asked for by name (`--only walks`: on a debug build).
    var askedForOnly: [(String, () throws -> Void)] { [("walks", walks)] }

    func all(only: Set<String>? = nil) throws -> [Row] {
        let known = sections + askedForOnly
        if let only, let unknown = only.first(where: { name in !known.contains { $0.0 == name } }) {
            throw BenchError("no measurement named \(unknown); they are \(known.map(\.0).joined(separator: ", "))")
        }
        for (name, measure) in sections where only?.contains(name) ?? true { try measure() }
        for (name, measure) in askedForOnly where only?.contains(name) == true { try measure() }
        try write()
        return rows
    }

    // MARK: 1. linkctl open vs dbus-send Ping

    func linkctlOpen() throws {
        say("linkctl open vs dbus-send")
        let w = try world("open")
        try w.startDaemon()
        let client = try BenchClient(w.address)
        let runs = n(60, 5)
        let sessions = try (0..<runs).map { _ in try client.begin() }
        var i = 0
        let env = w.environment
        let (open, ping) = try Measure.interleaved(
            runs,
            {
                let (_, state) = sessions[i]
                i += 1
                let r = try Subprocess.run(
                    [bin + "/linkctl", "open", "--", "com.example.bench:/cb?code=c&state=" + state], environment: env)
                guard r.status == 0 else { throw BenchError("linkctl open failed: \(r.errorText)") }
            },
            {
                let r = try Subprocess.run(
                    [
                        "dbus-send", "--session", "--print-reply", "--dest=" + API.busName.rawValue,
                        API.managerPath.rawValue, "org.freedesktop.DBus.Peer.Ping",
                    ], environment: env)
                guard r.status == 0 else { throw BenchError("dbus-send failed") }
            })
        row(
            "`linkctl open` of a callback, whole process (median of \(runs))", value: open, unit: "ms", floor: ping,
            goal: "≤ 1.15×", met: open / ping <= 1.15)
    }

    // MARK: 2. a link click through xdg-open until the owner's Wait returns

    func linkClick() throws {
        say("xdg-open click to Wait")
        let w = try world("click")
        try w.startDaemon()
        guard try w.run([bin + "/linkctl", "register", "com.example.bench"]).status == 0 else {
            throw BenchError("register failed")
        }
        try w.entry("bench-true.desktop", exec: "/bin/true %u", types: ["x-scheme-handler/com.example.true"])
        let client = try BenchClient(w.address)
        let runs = n(30, 3)
        let env = w.environment
        var clicks: [Double] = []
        var floors: [Double] = []
        for _ in 0..<runs {
            clicks.append(try client.clickCallback(["xdg-open"], environment: env))
            floors.append(
                try Measure.ms {
                    let r = try Subprocess.run(["xdg-open", "com.example.true:/x?code=c&state=s"], environment: env)
                    guard r.status == 0 else { throw BenchError("xdg-open to /bin/true failed") }
                })
        }
        let a = Measure.median(clicks)
        let b = Measure.median(floors)
        row(
            "a click: `xdg-open` → linkrouter → owner's `Wait` returns (median of \(runs))", value: a, unit: "ms",
            floor: b,
            goal: "≤ 1.15×", met: a / b <= 1.15)
    }

    // MARK: 3. https passthrough vs xdg-open straight to the browser

    func passthrough() throws {
        say("https passthrough")
        let w = try world("passthrough")
        try w.startDaemon()
        let script = w.root + "/bin/bench-browser"
        try FileSystem.writeAtomically(script, text: "#!/bin/sh\n: > \(w.marker)\n", permissions: 0o755)
        try w.entry(
            "bench-browser.desktop", exec: script + " %u",
            types: ["x-scheme-handler/http", "x-scheme-handler/https", "text/html"])
        guard try w.run([bin + "/linkctl", "install", "--claim-https"]).status == 0 else {
            throw BenchError("install --claim-https failed")
        }
        let list = w.root + "/home/.config/mimeapps.list"
        let claimedList = try FileSystem.readText(list)
        let direct = claimedList.replacing(
            "x-scheme-handler/https=linkrouter-https.desktop;", with: "x-scheme-handler/https=bench-browser.desktop;")
        let env = w.environment
        func click(_ mimeapps: String) throws -> Double {
            try FileSystem.writeAtomically(list, text: mimeapps, permissions: 0o644)
            try? FileSystem.remove(w.marker)
            let t0 = Measure.now()
            let pid = try Subprocess.spawn(
                ["xdg-open", "https://example.org/page?x=1"], environment: env, stdout: .null, stderr: .null)
            while !FileSystem.exists(w.marker) {
                if Measure.now() - t0 > 10_000_000_000 { throw BenchError("the browser never ran") }
                var ts = timespec(tv_sec: 0, tv_nsec: 100_000)
                nanosleep(&ts, nil)
            }
            let span = Double(Measure.now() - t0) / 1e6
            Subprocess.wait(pid)
            return span
        }
        let runs = n(30, 3)
        var through: [Double] = []
        var straight: [Double] = []
        for _ in 0..<runs {
            through.append(try click(claimedList))
            straight.append(try click(direct))
            // The daemon starts at most 10 browsers a second (`Launcher`: a link loop's brake); the clicks stay under
            // it.
            Clock.sleep(milliseconds: 110)
        }
        let a = Measure.median(through)
        let b = Measure.median(straight)
        row(
            "https passthrough: `xdg-open` → linkrouter → browser entry (median of \(runs))", value: a, unit: "ms",
            floor: b,
            goal: "≤ 1.1×", met: a / b <= 1.1)
    }

    // MARK: 4. Route round trip at 10, 10,000 and 100,000 pending sessions; memory

    func routeScaling() throws {
        say("Route at 10 / 10,000 / 100,000 pending sessions")
        let w = try world("scaling")
        try w.startDaemon()
        Clock.sleep(milliseconds: 200)
        let idle = rss(w.daemonPID)
        if let d = Environment.nonEmpty("LINKROUTER_BENCH_SMAPS") {
            _ = try? Subprocess.run(["/bin/cp", "/proc/\(w.daemonPID)/smaps", d + "/idle.smaps"])
        }
        row("daemon resident memory, idle", value: idle, unit: "MiB", floor: nil, goal: "≤ 12 MiB", met: idle <= 12)
        let filler = try BenchClient(w.address)
        let client = try BenchClient(w.address)
        var filled = 0
        var base = 0.0
        // Warm the daemon, the bus and the caches before the first level is timed.
        for _ in 0..<n(200, 10) {
            let (_, state) = try client.begin()
            _ = try client.call("Route", [.string("com.example.bench:/cb?code=c&state=" + state)])
        }
        for level in smoke ? [10, 200] : [10, 10_000, 100_000] {
            while filled < level - 1 {
                _ = try filler.begin()
                filled += 1
            }
            if level == 10_000 || (smoke && level == 200) {
                let mem = rss(w.daemonPID)
                // LINKROUTER_BENCH_SMAPS=DIR keeps /proc/PID/smaps here and at idle, to see what took the memory.
                if let d = Environment.nonEmpty("LINKROUTER_BENCH_SMAPS") {
                    _ = try? Subprocess.run(["/bin/cp", "/proc/\(w.daemonPID)/smaps", "\(d)/pending-\(level).smaps"])
                }
                row(
                    "daemon resident memory, \(level) pending sessions", value: mem, unit: "MiB", floor: nil,
                    goal: "≤ 24 MiB", met: smoke ? nil : mem <= 24)
            }
            // One fresh session at a time, so the table holds `level` while each Route runs.
            var xs: [Double] = []
            for _ in 0..<n(300, 20) {
                let (_, state) = try client.begin()
                xs.append(
                    try Measure.ms {
                        _ = try client.call("Route", [.string("com.example.bench:/cb?code=c&state=" + state)])
                    })
            }
            let m = Measure.median(xs)
            if level == 10 { base = m }
            row(
                "`Route` round trip at \(level) pending sessions (median of \(xs.count))", value: m * 1000, unit: "µs",
                floor: level == 10 ? nil : base * 1000, goal: level == 10 ? "the floor" : "≤ 1.3× growth",
                met: level == 10 ? nil : m / base <= 1.3)
        }
    }

    func rss(_ pid: Int32) -> Double {
        let status = (try? FileSystem.readText("/proc/\(pid)/status")) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        let kb = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? .nan
        return kb / 1024
    }

    // MARK: 5. throughput from 8 clients vs GetId

    func throughput() throws {
        say("8 concurrent clients")
        let w = try world("throughput")
        try w.startDaemon()
        let client = try BenchClient(w.address)
        let per = n(400, 20)
        var files: [String] = []
        for k in 0..<8 {
            var lines: [String] = []
            for _ in 0..<per { lines.append("com.example.bench:/cb?code=c&state=" + (try client.begin()).1) }
            let f = w.root + "/links.\(k)"
            try FileSystem.writeAtomically(f, text: lines.joined(separator: "\n") + "\n")
            files.append(f)
        }
        let me = FileSystem.executablePath()
        func parallel(_ argv: (Int) -> [String]) throws -> Double {
            let t0 = Measure.now()
            let pids = try (0..<8).map {
                try Subprocess.spawn(argv($0), environment: w.environment, stdout: .null, stderr: .inherit)
            }
            for p in pids { guard Subprocess.wait(p) == 0 else { throw BenchError("a worker failed") } }
            return Double(8 * per) / (Double(Measure.now() - t0) / 1e9)
        }
        let routes = try parallel { [me, "route-worker", w.address, files[$0]] }
        let getid = try parallel { _ in [me, "getid-worker", w.address, String(per)] }
        row(
            "routed callbacks per second, 8 clients × \(per)", value: routes, unit: "/s", floor: getid, goal: "≥ 0.5×",
            met: routes / getid >= 0.5)
        // The ceiling any service on this bus has: a process that answers every call at once (serve-name).
        let echo = try Subprocess.spawn(
            [me, "serve-name", w.address, "org.linkrouter.BenchEcho"], environment: w.environment, stdout: .null,
            stderr: .null)
        defer {
            kill(echo, SIGTERM)
            Subprocess.wait(echo)
        }
        guard w.wait({ client.c.nameHasOwner("org.linkrouter.BenchEcho") }) else {
            throw BenchError("echo service did not start")
        }
        let pings = try parallel { _ in [me, "echo-worker", w.address, String(per)] }
        row(
            "calls per second to a do-nothing service on the same bus, 8 clients × \(per)", value: pings, unit: "/s",
            floor: getid,
            goal: "(the bus's ceiling for any service)", met: nil)
    }

    // MARK: 6. cold start by D-Bus activation with 10,000 stored sessions

    func coldStart() throws {
        say("cold start by activation")
        let w = try world("cold")
        try w.startDaemon()
        let filler = try BenchClient(w.address)
        for _ in 0..<n(10_000, 100) { _ = try filler.begin() }
        w.stopDaemon()
        try FileSystem.writeAtomically(
            w.root + "/bus/services/org.linkrouter.LinkRouter1.service",
            text: """
                [D-BUS Service]
                Name=org.linkrouter.LinkRouter1
                Exec=\(bin)/linkrouterd --max-pending 300000 --max-pending-per-client 300000 --max-routes-per-second 10000000

                """, permissions: 0o644)
        // The floor: the smallest service there is, a process that only takes its name (this binary, serve-name).
        try FileSystem.writeAtomically(
            w.root + "/bus/services/org.linkrouter.BenchFloor.service",
            text: """
                [D-BUS Service]
                Name=org.linkrouter.BenchFloor
                Exec=\(FileSystem.executablePath()) serve-name \(w.address) org.linkrouter.BenchFloor

                """, permissions: 0o644)
        let probe = try BenchClient(w.address)
        var cold: [Double] = []
        var floor: [Double] = []
        for _ in 0..<n(5, 1) {
            let ping = DBusMessage.methodCall(API.busName, API.managerPath, API.peerInterface, "Ping")
            cold.append(try Measure.ms { _ = try probe.c.call(ping, timeoutMilliseconds: 30_000) })
            let floorPing = DBusMessage.methodCall("org.linkrouter.BenchFloor", "/", API.peerInterface, "Ping")
            floor.append(try Measure.ms { _ = try probe.c.call(floorPing, timeoutMilliseconds: 30_000) })
            // Stop both activated services for the next cold start.
            for name in [API.busName.rawValue, "org.linkrouter.BenchFloor"] {
                let pidCall = DBusMessage.methodCall(
                    "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                    "GetConnectionUnixProcessID")
                try pidCall.append(.string(name))
                if case .uint32(let pid)? = try probe.c.callArguments(pidCall).first {
                    kill(Int32(pid), SIGTERM)
                    _ = w.wait({ !probe.c.nameHasOwner(name) })
                }
            }
        }
        let c = Measure.median(cold)
        let f = Measure.median(floor)
        row(
            "cold start: activation → name acquired → reply, \(n(10_000, 100)) stored sessions (median of \(cold.count))",
            value: c, unit: "ms", floor: f,
            goal: "≤ 50 ms", met: c <= 50)
    }

    // MARK: 7. BeginSession with a durable write

    func beginRate() throws {
        say("BeginSession rate")
        let w = try world("begin")
        try w.startDaemon()
        let client = try BenchClient(w.address)
        let count = n(5000, 100)
        let t0 = Measure.now()
        for _ in 0..<count { _ = try client.begin() }
        let rate = Double(count) / (Double(Measure.now() - t0) / 1e9)
        row(
            "`BeginSession` with its durable write, one client, \(count) calls", value: rate, unit: "/s", floor: nil,
            goal: "≥ 2,000/s", met: rate >= 2000)
    }

    // MARK: 8. instruction counts (callgrind): repeatable whatever the noise

    func instructions() throws {
        say("callgrind instruction counts")
        guard FileSystem.findExecutable("valgrind") != nil else {
            notes.append("valgrind is not installed: no instruction counts")
            return
        }
        let w = try world("callgrind")
        try w.startDaemon()
        let client = try BenchClient(w.address)
        // LINKROUTER_BENCH_CALLGRIND=DIR keeps the profiles there, for callgrind_annotate.
        let keep = Environment.nonEmpty("LINKROUTER_BENCH_CALLGRIND")
        func count(_ argv: [String]) throws -> Double {
            let file = (keep ?? w.root) + "/cg.\(FileSystem.baseName(argv[0])).\(argv.dropFirst().first ?? "")"
            _ = try Subprocess.run(
                ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + file] + argv, environment: w.environment,
                timeoutMilliseconds: 120_000)
            return Self.total(try FileSystem.readText(file, maxBytes: 256 << 20))
        }
        let (_, state) = try client.begin()
        let open = try count([bin + "/linkctl", "open", "--", "com.example.bench:/cb?code=c&state=" + state])
        let send = try count([
            "dbus-send", "--session", "--print-reply", "--dest=" + API.busName.rawValue, API.managerPath.rawValue,
            "org.freedesktop.DBus.Peer.Ping",
        ])
        row(
            "instructions: `linkctl open` of a callback, whole process", value: open / 1e6, unit: "M",
            floor: send / 1e6, goal: "a count to watch", met: nil)
        // The front alone (an empty link is refused before the bus), and the full linkctl the front hands other verbs to.
        let front = try count([bin + "/linkctl", "open", ""])
        let full = try count([bin + "/" + LinkctlLayout.fullName, "--version"])
        let truth = try count(["/bin/true"])
        row(
            "instructions: the front's start-up alone (`linkctl open ''`, refused before the bus)", value: front / 1e6,
            unit: "M", floor: truth / 1e6, goal: "a count to watch", met: nil)
        row(
            "instructions: the full linkctl's start-up (`linkctl-full --version`, every verb the front hands on)",
            value: full / 1e6, unit: "M", floor: truth / 1e6, goal: "a count to watch", met: nil)
        w.stopDaemon()

        // The daemon under callgrind: counters zeroed, N routes, dumped.
        let file = w.root + "/cg.daemon"
        let pid = try Subprocess.spawn(
            [
                "valgrind", "--tool=callgrind", "--compress-strings=no", "--callgrind-out-file=" + file,
                bin + "/linkrouterd", "--max-routes-per-second", "10000000", "--max-pending-per-client",
                "300000",
            ],
            environment: w.environment, stdout: .null, stderr: .null)
        var running = true
        defer {
            if running {
                kill(pid, SIGTERM)
                Subprocess.wait(pid)
            }
        }
        let c = try BenchClient(w.address)
        guard w.wait({ c.c.nameHasOwner(API.busName.rawValue) }, milliseconds: 60_000) else {
            throw BenchError("daemon under callgrind did not start")
        }
        let routes = n(500, 20)
        let states = try (0..<routes).map { _ in try c.begin().1 }
        _ = try Subprocess.run(["callgrind_control", "-z", String(pid)])
        for s in states { _ = try c.call("Route", [.string("com.example.bench:/cb?code=c&state=" + s)]) }
        _ = try Subprocess.run(["callgrind_control", "-d", String(pid)])
        Clock.sleep(milliseconds: 200)
        let dumps = FileSystem.list(w.root).filter { $0.hasPrefix("cg.daemon") && $0 != "cg.daemon" }
        guard let dump = dumps.last else { throw BenchError("no callgrind dump") }
        if let keep { _ = try? Subprocess.run(["cp", w.root + "/" + dump, keep + "/cg.daemon.route"]) }
        let perRoute = Self.total(try FileSystem.readText(w.root + "/" + dump, maxBytes: 256 << 20)) / Double(routes)
        row(
            "instructions in the daemon per `Route` that completes a session", value: perRoute / 1000, unit: "k",
            floor: nil, goal: "a count to watch", met: nil)
        // Each client that comes to the bus and goes without calling the daemon: its appearance noted (the bound a
        // caller's identity is checked against, issue 36) and its departure handled; nothing read from /proc.
        let clients = n(200, 10)
        _ = try Subprocess.run(["callgrind_control", "-z", String(pid)])
        for _ in 0..<clients { _ = try DBusConnection(address: w.address) }
        try c.ping()
        _ = try Subprocess.run(["callgrind_control", "-d", String(pid)])
        Clock.sleep(milliseconds: 200)
        let connectionDump = FileSystem.list(w.root).filter { $0.hasPrefix("cg.daemon") && $0 != "cg.daemon" }.sorted()
            .last
        if let connectionDump, connectionDump != dump {
            let perClient =
                Self.total(try FileSystem.readText(w.root + "/" + connectionDump, maxBytes: 256 << 20))
                / Double(clients)
            row(
                "instructions in the daemon per bus client that comes and goes without calling it (its appearance noted for identity checks, its departure handled)",
                value: perClient / 1000, unit: "k", floor: nil, goal: "a count to watch", met: nil)
        } else {
            notes.append("no second callgrind dump: the per-client count was not taken")
        }
        // Each new client's first account call (what every `linkctl token` is to the daemon): its app found out
        // (`GetConnectionCredentials`, then /proc) before the call is answered, here with UnknownAccount.
        let askers = n(200, 10)
        _ = try Subprocess.run(["callgrind_control", "-z", String(pid)])
        for _ in 0..<askers {
            let asker = try BenchClient(w.address)
            guard (try? asker.call("GetToken", [.string("nobody"), .vardict([])])) == nil else {
                throw BenchError("GetToken for an account nobody declared was answered")
            }
        }
        try c.ping()
        _ = try Subprocess.run(["callgrind_control", "-d", String(pid)])
        Clock.sleep(milliseconds: 200)
        let askDump = FileSystem.list(w.root).filter { $0.hasPrefix("cg.daemon") && $0 != "cg.daemon" }.sorted().last
        if let askDump, askDump != dump, askDump != connectionDump {
            if let keep { _ = try? Subprocess.run(["cp", w.root + "/" + askDump, keep + "/cg.daemon.ask"]) }
            let perAsk =
                Self.total(try FileSystem.readText(w.root + "/" + askDump, maxBytes: 256 << 20)) / Double(askers)
            row(
                "instructions in the daemon per new client's first account call (`GetToken`: its app found out, then refused as an unknown account; its departure handled)",
                value: perAsk / 1000, unit: "k", floor: nil, goal: "a count to watch", met: nil)
        } else {
            notes.append("no third callgrind dump: the per-call count was not taken")
        }
        kill(pid, SIGTERM)
        Subprocess.wait(pid)
        running = false
        try restoreInstructions(w, keep: keep)
    }

    /// The daemon under callgrind from start to its name taken and one `Ping`
    /// answered, with N sessions in the store whose owner is still on the bus;
    /// then that owner leaves and every session is settled (one transition).
    func restoreInstructions(_ w: BenchWorld, keep: String?) throws {
        let stored = n(10_000, 100)
        try w.startDaemon()
        var filler: BenchClient? = try BenchClient(w.address)
        for _ in 0..<stored { _ = try filler!.begin() }
        let fillerName = filler!.c.uniqueName
        w.stopDaemon()
        let file = w.root + "/cg.restore"
        let pid = try Subprocess.spawn(
            [
                "valgrind", "--tool=callgrind", "--compress-strings=no", "--callgrind-out-file=" + file,
                bin + "/linkrouterd",
                "--max-pending", "300000", "--max-pending-per-client", "300000", "--max-routes-per-second", "10000000",
            ],
            environment: w.environment, stdout: .null, stderr: .null)
        defer {
            kill(pid, SIGTERM)
            Subprocess.wait(pid)
        }
        let probe = try BenchClient(w.address)
        guard w.wait({ probe.c.nameHasOwner(API.busName.rawValue) }, milliseconds: 120_000) else {
            throw BenchError("daemon under callgrind did not start")
        }
        // Answered after the restore's transition, which runs on the turn after the bus's answer.
        func ping() throws {
            _ = try probe.c.callArguments(
                DBusMessage.methodCall(API.busName, API.managerPath, API.peerInterface, "Ping"),
                timeoutMilliseconds: 120_000)
        }
        try ping()
        func dump(_ name: String) throws -> Double {
            let before = Set(FileSystem.list(w.root))
            _ = try Subprocess.run(["callgrind_control", "-d", String(pid)])
            guard
                w.wait(
                    { FileSystem.list(w.root).contains { !before.contains($0) && $0.hasPrefix("cg.restore.") } },
                    milliseconds: 30_000),
                let new = FileSystem.list(w.root).first(where: { !before.contains($0) && $0.hasPrefix("cg.restore.") })
            else { throw BenchError("no callgrind dump") }
            Clock.sleep(milliseconds: 200)
            if let keep { _ = try? Subprocess.run(["cp", w.root + "/" + new, keep + "/cg.daemon." + name]) }
            return Self.total(try FileSystem.readText(w.root + "/" + new, maxBytes: 256 << 20))
        }
        let start = try dump("restore")
        row(
            "instructions: daemon start-up with \(stored) stored sessions, to name taken and one Ping answered",
            value: start / 1e6, unit: "M", floor: nil,
            goal: "a count to watch", met: nil)
        // The owner leaves: the bus tells the daemon before it answers a Ping sent after the name is gone.
        filler = nil
        guard w.wait({ !probe.c.nameHasOwner(fillerName) }, milliseconds: 30_000) else {
            throw BenchError("the filler did not leave")
        }
        try ping()
        let gone = try dump("owner-gone")
        row(
            "instructions: the owner of \(stored) sessions leaves the bus (each settled, one transition)",
            value: gone / 1e6, unit: "M", floor: nil,
            goal: "a count to watch", met: nil)
    }

    static func total(_ callgrind: String) -> Double {
        for line in callgrind.split(separator: "\n") where line.hasPrefix("summary:") || line.hasPrefix("totals:") {
            return Double(line.split(separator: " ").last ?? "") ?? .nan
        }
        return .nan
    }

    // MARK: Output

    func write() throws {
        let header = ["figure", "value", "floor (same run)", "ratio", "goal", "met"]
        var md =
            "| " + header.joined(separator: " | ") + " |\n|" + String(repeating: "---|", count: header.count) + "\n"
        for r in rows { md += "| " + r.cells.joined(separator: " | ") + " |\n" }
        for n in notes { md += "\n" + n + "\n" }
        try FileSystem.writeAtomically(out + "/table.md", text: md, permissions: 0o644)
    }
}
