import DBusKit
import Freedesktop
import Glibc
import LinkRouterAPI
import SystemKit

/// Deep links (issue 14): a click on an app's link, through linkrouter, until
/// the app's `Open` handler has it, beside the same link opened straight to
/// the same app with no linkrouter in between, in the same run. The app is a
/// real GApplication (the tests' fixture), running, then not running.
extension Bench {
    func deepLinks() throws {
        say("deep link click to the app's Open handler")
        let w = try world("deeplink")
        try w.startDaemon()
        let bench = try BenchApp(in: w, bin: bin)
        let record = bench.record
        let list = w.root + "/home/.config/mimeapps.list"
        let viaLinkrouter = bench.viaLinkrouter
        let straight = bench.straight
        var opened = 0
        var written: String?
        /// From the launcher's start until the app's `open` handler has written the link.
        /// mimeapps.list is written only when it changes: the daemon rereads the desktop's
        /// files after a change, as it should, but a user's clicks do not come with one.
        func click(_ launcher: [String], mimeapps: String) throws -> Double {
            if written != mimeapps {
                try FileSystem.writeAtomically(list, text: mimeapps, permissions: 0o644)
                written = mimeapps
            }
            opened += 1
            let link = "com.example.bench:/items/\(opened)"
            let t0 = Measure.now()
            let pid = try Subprocess.spawn(launcher + [link], environment: w.environment, stdout: .null, stderr: .null)
            guard
                w.wait(
                    { ((try? FileSystem.readText(record)) ?? "").contains("\"" + link + "\"") }, milliseconds: 20_000)
            else {
                throw BenchError("the app never got \(link) from \(launcher[0])")
            }
            let ms = Double(Measure.now() - t0) / 1e6
            Subprocess.wait(pid)
            return ms
        }
        let app = BenchAppProcess(world: w)
        // Running: the first click starts it; then every click finds it running.
        _ = try click(["xdg-open"], mimeapps: viaLinkrouter)
        var samples: [String: [Double]] = [:]
        for _ in 0..<n(30, 3) {
            for (mimeapps, variants) in [
                (
                    viaLinkrouter,
                    [("xdg", ["xdg-open"]), ("gio", ["gio", "open"]), ("linkctl", [bin + "/linkctl", "open"])]
                ),
                (straight, [("xdg floor", ["xdg-open"]), ("gio floor", ["gio", "open"])]),
            ] {
                _ = try click(["gio", "open"], mimeapps: mimeapps)  // after the change: not sampled
                for (name, launcher) in variants {
                    samples[name, default: []].append(try click(launcher, mimeapps: mimeapps))
                }
            }
        }
        let xdg = Measure.median(samples["xdg"]!)
        let gio = Measure.median(samples["gio"]!)
        let linkctl = Measure.median(samples["linkctl"]!)
        let xdgFloor = Measure.median(samples["xdg floor"]!)
        let gioFloor = Measure.median(samples["gio floor"]!)
        let runs = samples["xdg"]!.count
        row(
            "deep link, app running: `xdg-open` → linkrouter → the app's Open (median of \(runs))", value: xdg,
            unit: "ms", floor: gioFloor,
            goal: "≤ 1.15× (floor: `gio open` straight to the app)", met: xdg / gioFloor <= 1.15)
        row(
            "deep link, app running: `gio open` → linkrouter → the app's Open (median of \(runs))", value: gio,
            unit: "ms", floor: gioFloor,
            goal: "same launcher, with and without linkrouter", met: nil)
        row(
            "deep link, app running: `linkctl open` run by hand → the app's Open (median of \(runs))", value: linkctl,
            unit: "ms", floor: gioFloor,
            goal: "linkrouter's own part of the two above", met: nil)
        row(
            "deep link, app running: `xdg-open` straight to the app, no linkrouter (median of \(runs))",
            value: xdgFloor, unit: "ms", floor: gioFloor,
            goal: "what `xdg-open` itself costs over `gio open`", met: nil)
        // Not running: each click starts it by D-Bus activation (through linkrouter, or GIO's own).
        var cold: [Double] = []
        var coldFloor: [Double] = []
        for _ in 0..<n(10, 2) {
            app.stop()
            cold.append(try click(["xdg-open"], mimeapps: viaLinkrouter))
            app.stop()
            coldFloor.append(try click(["gio", "open"], mimeapps: straight))
        }
        app.stop()
        let c = Measure.median(cold)
        let cf = Measure.median(coldFloor)
        row(
            "deep link, app not running: `xdg-open` → linkrouter → activation → Open (median of \(cold.count))",
            value: c, unit: "ms", floor: cf,
            goal: "floor: `gio open` starting it directly", met: nil)
    }
}

/// The bench app's process, found on the bus and stopped between cold clicks.
struct BenchAppProcess {
    let world: BenchWorld

    func stop() {
        guard let c = try? DBusConnection(address: world.address) else { return }
        let m = DBusMessage.methodCall(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID")
        guard (try? m.append(.string("org.example.BenchApp"))) != nil,
            case .uint32(let pid)? = try? c.callArguments(m).first
        else { return }
        kill(Int32(pid), SIGTERM)
        _ = world.wait({ !c.nameHasOwner("org.example.BenchApp") })
    }
}

/// The tests' GApplication installed in a bench world as `org.example.BenchApp`
/// (D-Bus activatable, a service file on the world's bus), handling
/// `com.example.bench`, which linkrouter is registered for with it as the app.
struct BenchApp {
    /// Where it writes a JSON line per link it opens.
    let record: String
    /// `mimeapps.list` texts: the scheme to linkrouter's entry, or straight to the app.
    let viaLinkrouter: String
    let straight: String

    init(in w: BenchWorld, bin: String) throws {
        // The tests' GApplication, from this file's place in the repository.
        let root = FileSystem.directoryName(FileSystem.directoryName(FileSystem.directoryName(#filePath)))
        record = w.root + "/app.jsonl"
        let command = "/usr/bin/python3 \(root)/Tests/IntegrationTests/Fixtures/gapp.py org.example.BenchApp \(record)"
        try FileSystem.writeAtomically(
            w.applications + "/org.example.BenchApp.desktop",
            text:
                "[Desktop Entry]\nType=Application\nName=Bench app\nExec=\(command) %U\nDBusActivatable=true\nMimeType=x-scheme-handler/com.example.bench;\n",
            permissions: 0o644)
        try FileSystem.writeAtomically(
            w.root + "/bus/services/org.example.BenchApp.service",
            text: "[D-BUS Service]\nName=org.example.BenchApp\nExec=\(command) --gapplication-service\n",
            permissions: 0o644)
        guard
            try w.run([bin + "/linkctl", "register", "com.example.bench", "--app", "org.example.BenchApp.desktop"])
                .status == 0
        else {
            throw BenchError("register failed")
        }
        viaLinkrouter = MimeApps.settingDefault(
            "linkrouter-com.example.bench.desktop", for: ["x-scheme-handler/com.example.bench"], in: nil)
        straight = MimeApps.settingDefault(
            "org.example.BenchApp.desktop", for: ["x-scheme-handler/com.example.bench"], in: nil)
    }
}
