import Freedesktop
import Glibc
import SystemKit

/// A login callback clicked through the desktops' own launchers (issue 20):
/// GIO's `gio open` (what GNOME's `xdg-open`, Firefox and the portal use) and
/// KDE's `kde-open5`, each beside the same launcher handing a link straight
/// to a do-nothing handler, in the same run; and how many processes a click
/// through GIO starts.
extension Bench {
    func launchers() throws {
        say("callback clicks through gio open and kde-open5")
        let w = try world("launchers")
        try w.startDaemon()
        let bench = try BenchApp(in: w, bin: bin)
        try w.entry("bench-true.desktop", exec: "/bin/true %u", types: ["x-scheme-handler/com.example.true"])
        let list = w.root + "/home/.config/mimeapps.list"
        let withTrue = { (mimeapps: String) in
            MimeApps.settingDefault("bench-true.desktop", for: ["x-scheme-handler/com.example.true"], in: mimeapps)
        }
        let viaLinkrouter = withTrue(bench.viaLinkrouter)
        let straight = withTrue(bench.straight)
        let client = try BenchClient(w.address)
        let app = BenchAppProcess(world: w)
        var written: String?
        func use(_ mimeapps: String) throws {
            guard written != mimeapps else { return }
            try FileSystem.writeAtomically(list, text: mimeapps, permissions: 0o644)
            written = mimeapps
        }
        /// From the launcher's start until the owner's `Wait` has the result (the environment read per click: KDE's is
        /// set later).
        func callback(_ launcher: [String]) throws -> Double {
            try client.clickCallback(launcher, environment: w.environment)
        }
        var opened = 0
        /// From the launcher's start until the running app's `Open` has the link.
        func toApp(_ launcher: [String]) throws -> Double {
            opened += 1
            let link = "com.example.bench:/floor/\(opened)"
            let t0 = Measure.now()
            let pid = try Subprocess.spawn(launcher + [link], environment: w.environment, stdout: .null, stderr: .null)
            guard
                w.wait(
                    { ((try? FileSystem.readText(bench.record)) ?? "").contains("\"" + link + "\"") },
                    milliseconds: 20_000)
            else {
                throw BenchError("the app never got \(link)")
            }
            let ms = Double(Measure.now() - t0) / 1e6
            Subprocess.wait(pid, timeoutMilliseconds: 30_000)
            return ms
        }

        // GIO: linkrouter's entry runs `Exec=linkctl open`; the floor is the same launcher calling a
        // running D-Bus-activatable app's Open, which starts no process at all.
        try use(straight)
        _ = try toApp(["gio", "open"])  // starts the app; not sampled
        var gio: [Double] = []
        var gioFloor: [Double] = []
        for _ in 0..<n(30, 3) {
            try use(viaLinkrouter)
            _ = try callback(["gio", "open"])  // after the change: not sampled
            gio.append(try callback(["gio", "open"]))
            try use(straight)
            _ = try toApp(["gio", "open"])
            gioFloor.append(try toApp(["gio", "open"]))
        }
        let g = Measure.median(gio)
        let gf = Measure.median(gioFloor)
        row(
            "a callback click: `gio open` → linkrouter → owner's `Wait` returns (median of \(gio.count))", value: g,
            unit: "ms", floor: gf,
            goal:
                "≤ 1.1× (floor: `gio open` to a running do-nothing D-Bus-activatable app, until its Open has the link)",
            met: g / gf <= 1.1)

        // Processes a click starts (the daemon starts none for a callback).
        try use(viaLinkrouter)
        let viaProcesses = try processesStarted(
            by: ["gio", "open", "com.example.bench:/cb?code=c&state=nobody"], in: w)
        try use(straight)
        let floorProcesses = try processesStarted(by: ["gio", "open", "com.example.bench:/floor/processes"], in: w)
        row(
            "processes a `gio open` click starts: linkrouter's entry (`Exec=linkctl open`)",
            value: Double(viaProcesses), unit: "processes",
            floor: Double(floorProcesses), floorUnit: "processes",
            goal:
                "0 where the entry is D-Bus activatable (floor: the same click to a running D-Bus-activatable app); linkrouter's entry keeps Exec, see GIO delivery",
            met: viaProcesses == 0)
        app.stop()

        // KDE: `kde-open5` reads KService's cache, built once for these defaults.
        guard FileSystem.isExecutable("/usr/bin/kde-open5"),
            FileSystem.status("/etc/xdg/menus/kf5-applications.menu") != nil
        else {
            say("kde-open5 is missing (Debian: kde-cli-tools): no KDE row")
            return
        }
        try FileSystem.makeDirectories(w.root + "/xdg/menus", permissions: 0o700)
        try? FileSystem.symlink("/etc/xdg/menus/kf5-applications.menu", at: w.root + "/xdg/menus/kf5-applications.menu")
        w.extraEnvironment = [
            "XDG_CURRENT_DESKTOP=KDE", "KDE_SESSION_VERSION=5", "QT_QPA_PLATFORM=offscreen",
            "XDG_CACHE_HOME=" + w.root + "/cache",
            "XDG_CONFIG_DIRS=" + w.root + "/xdg",
        ]
        defer { w.extraEnvironment = [] }
        try use(viaLinkrouter)
        guard try w.run(["kbuildsycoca5", "--noincremental"]).status == 0 else {
            throw BenchError("kbuildsycoca5 failed")
        }
        var kde: [Double] = []
        var kdeFloor: [Double] = []
        _ = try callback(["kde-open5"])  // the first run of Qt's libraries; not sampled
        for _ in 0..<n(20, 2) {
            kde.append(try callback(["kde-open5"]))
            kdeFloor.append(
                try Measure.ms {
                    guard try w.run(["kde-open5", "com.example.true:/x?code=c&state=s"]).status == 0 else {
                        throw BenchError("kde-open5 to /bin/true failed")
                    }
                })
        }
        let k = Measure.median(kde)
        let kf = Measure.median(kdeFloor)
        row(
            "a callback click: `kde-open5` → linkrouter → owner's `Wait` returns (median of \(kde.count))", value: k,
            unit: "ms", floor: kf,
            goal: "≤ 1.05× (floor: `kde-open5` straight to a do-nothing handler, until it exits)", met: k / kf <= 1.05)
    }

    /// How many processes `argv` starts (threads not counted): every clone, fork and vfork without
    /// CLONE_THREAD under `strace -f`, so the launcher's children's children count too.
    private func processesStarted(by argv: [String], in w: BenchWorld) throws -> Int {
        let trace = w.root + "/strace.out"
        try? FileSystem.remove(trace)
        let r = try w.run(["strace", "-f", "-qq", "-e", "trace=clone,clone3,fork,vfork", "-o", trace] + argv)
        guard r.status == 0, let text = try? FileSystem.readText(trace) else {
            throw BenchError("strace \(argv[0]) failed: \(r.errorText)")
        }
        // A call that blocks is written twice ("unfinished", then "resumed"): its first line has the flags.
        return text.split(separator: "\n").filter { line in
            ["clone(", "clone3(", "fork(", "vfork("].contains { line.contains($0) } && !line.contains("CLONE_THREAD")
                && !line.contains("resumed>")
        }.count
    }
}
