import DBusKit
import Glibc
import LinkRouterAPI
import SystemKit

/// The walks docs/architecture.md counts: for each of five events, every
/// source file of linkrouter's that runs for it, in the daemon and in the
/// `linkctl` (or `git`'s helper) that starts it, counted by callgrind with
/// collection on only around the event. Run it on a debug build, where nothing
/// is inlined, so every file that runs shows:
///
///     swift build && .build/debug/linkrouter-bench run .build/debug OUT --only walks
///
/// Per process: `files` that executed instructions; `hops`, the distinct calls
/// from a function in one file to a function in another; `re-entries`, the hops
/// beyond the fewest that reach every file (hops − files + 1). A walk's figure
/// is the sum over its processes. Not in a full run: a release build inlines
/// across files, and the counts would say less than what runs.
extension Bench {
    func walks() throws {
        say("walks: the files each event runs through")
        guard let world = try accountWorld("walks") else { return }
        let w = world.w
        let app = try BenchApp(in: w, bin: bin)
        try FileSystem.writeAtomically(
            w.root + "/home/.config/mimeapps.list", text: app.viaLinkrouter, permissions: 0o644)
        try world.add("work", bin: bin)
        try signIn(w, "work", providerInfo: world.provider.infoPath)
        w.stopDaemon()
        // The daemon again, under callgrind, collecting nothing until asked.
        let daemonOut = w.root + "/cg.walk.daemon"
        try w.startDaemon(
            ["--system-accounts-dir", w.root + "/etc-accounts"],
            wrapper: [
                "valgrind", "--tool=callgrind", "--instr-atstart=no", "--compress-strings=no",
                "--callgrind-out-file=" + daemonOut,
            ], milliseconds: 120_000)
        let pid = w.daemonPID
        let client = try BenchClient(w.address)

        /// One event: the daemon's collection on around `action`, whose client processes
        /// run under callgrind into `clientOut` files; the counts of both.
        var n = 0
        func walk(
            _ name: String, before: () throws -> Void = {}, _ action: (_ traced: (String) -> [String]) throws -> Void
        ) throws {
            n += 1
            // What the event needs first (a session begun, an app running) is not counted.
            try before()
            var clients: [String] = []
            func traced(_ label: String) -> [String] {
                let file = w.root + "/cg.walk.\(n).\(label)"
                clients.append(file)
                return ["valgrind", "--tool=callgrind", "--compress-strings=no", "--callgrind-out-file=" + file]
            }
            _ = try Subprocess.run(["callgrind_control", "-z", String(pid)])
            _ = try Subprocess.run(["callgrind_control", "-i", "on", String(pid)])
            try action(traced)
            // Whatever the event set going in the daemon (a keyring write after an answer) is over by a Ping's answer.
            try client.ping()
            _ = try Subprocess.run(["callgrind_control", "-i", "off", String(pid)])
            let dump = try dumped(w, pid: pid, prefix: FileSystem.baseName(daemonOut))
            var counts = [WalkCount(callgrind: try FileSystem.readText(dump, maxBytes: 512 << 20))]
            for file in clients {
                counts.append(WalkCount(callgrind: try FileSystem.readText(file, maxBytes: 512 << 20)))
            }
            let total = counts.reduce(WalkCount.zero, +)
            row(
                "walk: \(name) (files, hops, re-entries; daemon \(counts[0].summary)"
                    + (counts.count > 1 ? ", client \(counts.dropFirst().reduce(WalkCount.zero, +).summary))" : ")"),
                value: Double(total.files), unit: "files", floor: nil,
                goal: "\(total.hops) hops, \(total.reentries) re-entries", met: nil)
        }

        var state = ""
        let begun = { state = try client.begin().1 }
        try walk("a callback, `linkctl open` completing a session", before: begun) { traced in
            let r = try w.run(
                traced("open") + [bin + "/linkctl", "open", "--", "com.example.bench:/cb?code=c&state=" + state])
            guard r.status == 0 else { throw BenchError("open: \(r.errorText)") }
        }
        try walk("`BeginSession` with issuer and exchange: `linkctl login` to its tokens") { traced in
            try signIn(w, "work", providerInfo: world.provider.infoPath, launcher: traced("login"))
        }
        let record = app.record
        let started = {
            _ = try w.run([self.bin + "/linkctl", "open", "--", "com.example.bench:/items/start"])
            guard w.wait({ ((try? FileSystem.readText(record)) ?? "").contains("items/start") }, milliseconds: 30_000)
            else { throw BenchError("the app did not start") }
        }
        try walk("a deep link, `linkctl open` to a running D-Bus-activatable app", before: started) { traced in
            let r = try w.run(traced("open") + [bin + "/linkctl", "open", "--", "com.example.bench:/items/42"])
            guard r.status == 0, w.wait({ ((try? FileSystem.readText(record)) ?? "").contains("items/42") }) else {
                throw BenchError("deep link: \(r.errorText)")
            }
        }
        try walk("`linkctl token NAME` with a refresh") { traced in
            let r = try w.run(traced("token") + [bin + "/linkctl", "token", "work", "--min-valid", "3600"])
            guard r.status == 0 else { throw BenchError("token: \(r.errorText)") }
        }
        try walk("`git credential fill` through `linkctl credential git`") { traced in
            let helper = traced("git").joined(separator: " ") + " '" + bin + "/linkctl' credential git --account work"
            let r = try w.run(
                ["git", "-c", "credential.helper=", "-c", "credential.helper=!" + helper, "credential", "fill"],
                input: "protocol=https\nhost=git.example.com\n\n")
            guard r.status == 0, r.text.contains("password=") else { throw BenchError("git: \(r.errorText)") }
        }
        w.stopDaemon()
    }

    /// The newest dump of the daemon's callgrind (`callgrind_control -d`).
    private func dumped(_ w: BenchWorld, pid: Int32, prefix: String) throws -> String {
        let before = Set(FileSystem.list(w.root))
        _ = try Subprocess.run(["callgrind_control", "-d", String(pid)])
        var new: String?
        guard
            w.wait(
                {
                    new = FileSystem.list(w.root).first { !before.contains($0) && $0.hasPrefix(prefix + ".") }
                    return new != nil
                }, milliseconds: 60_000), let new
        else { throw BenchError("no callgrind dump") }
        Clock.sleep(milliseconds: 300)
        return w.root + "/" + new
    }
}

/// Files, hops and re-entries of one process's callgrind profile, over linkrouter's own source files.
struct WalkCount {
    var files = 0
    var hops = 0
    var reentries: Int { hops == 0 && files == 0 ? 0 : hops - files + 1 }
    static let zero = WalkCount()

    var summary: String { "\(files), \(hops), \(reentries)" }

    static func + (a: WalkCount, b: WalkCount) -> WalkCount {
        WalkCount(files: a.files + b.files, hops: a.hops + b.hops)
    }

    init(files: Int = 0, hops: Int = 0) {
        self.files = files
        self.hops = hops
    }

    /// Reads a profile written with `--compress-strings=no`: `fl=` names the file of the
    /// functions that follow (`fi=`/`fe=` the file of inlined lines), `cfi=`/`cfl=` and `cfn=` a
    /// call's target, `calls=` the call itself, then its line and inclusive cost.
    init(callgrind text: String) {
        var ran: Set<String> = []
        var edges: Set<String> = []
        var file: String?
        var lineFile: String?
        var function = ""
        var calleeFile: String?
        var calleeFunction = ""
        var afterCalls = false
        /// The part of a path after `/Sources/`, for linkrouter's own files (nil for any other).
        func own(_ path: String) -> String? {
            guard let r = path.firstRange(of: "/Sources/") else { return nil }
            return String(path[r.upperBound...])
        }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = String(raw)
            if line.hasPrefix("fl=") {
                file = own(String(line.dropFirst(3)))
                lineFile = file
            } else if line.hasPrefix("fi=") || line.hasPrefix("fe=") {
                lineFile = own(String(line.dropFirst(3)))
            } else if line.hasPrefix("fn=") {
                function = String(line.dropFirst(3))
                lineFile = file
            } else if line.hasPrefix("cfi=") || line.hasPrefix("cfl=") {
                calleeFile = own(String(line.dropFirst(4)))
            } else if line.hasPrefix("cfn=") {
                calleeFunction = String(line.dropFirst(4))
            } else if line.hasPrefix("calls=") {
                afterCalls = true
            } else if let first = line.first, first.isNumber || first == "+" || first == "-" || first == "*" {
                if afterCalls {
                    // A call's line: from this function's file to the callee's (its file, or this one's when unnamed).
                    afterCalls = false
                    let target = calleeFile ?? file
                    if let from = file, let to = target, from != to {
                        edges.insert(from + "\u{0}" + function + "\u{0}" + to + "\u{0}" + calleeFunction)
                    }
                    calleeFile = nil
                } else if let f = lineFile {
                    let cost = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
                    if cost > 0 { ran.insert(f) }
                }
            }
        }
        files = ran.count
        hops = edges.count
    }
}
