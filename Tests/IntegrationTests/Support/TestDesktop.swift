import Freedesktop
import SystemKit
import Testing

/// A throwaway desktop: its own HOME and XDG directories, stand-in
/// browsers that record what they are asked to open, and the environment
/// every program in a test runs with. `DISPLAY` is set so `xdg-open` uses the
/// mimeapps handlers (it does only with a display); no desktop is named, so
/// it takes its generic path.
///
/// Hermetic: the system's data and config directories are the test's own
/// (`share/`, `etc-xdg/`), so a browser installed in `/usr/share/applications`,
/// a system `mimeapps.list` or the runner's `XDG_CURRENT_DESKTOP`/`BROWSER`
/// never changes a result. Only what a test puts there exists.
final class TestDesktop {
    let dir = TestDirectory("lr-desktop")
    var root: String { dir.path }
    var home: String { root + "/home" }
    var dataHome: String { home + "/.local/share" }
    var configHome: String { home + "/.config" }
    var stateHome: String { home + "/.local/state" }
    var runtimeDir: String { root + "/run" }
    var applications: String { dataHome + "/applications" }
    var mimeappsList: String { configHome + "/mimeapps.list" }
    var records: String { root + "/records" }
    /// Stands in for `/usr/share`: the only system data directory the test's programs see.
    var systemData: String { root + "/share" }
    /// Stands in for `/etc/xdg`.
    var systemConfig: String { root + "/etc-xdg" }
    var busAddress: String?
    /// Extra variables for every child.
    var extraEnvironment: [String: String] = [:]

    init() throws {
        for d in [
            home, dataHome, configHome, stateHome, applications, records, root + "/bin", systemData + "/applications",
            systemConfig,
        ] {
            try FileSystem.makeDirectories(d, permissions: 0o700)
        }
        try FileSystem.ensurePrivateDirectory(runtimeDir)
    }

    /// The environment for children: nothing of the test runner's desktop leaks in.
    var environment: [String] {
        var env: [String: String] = [
            "HOME": home, "XDG_DATA_HOME": dataHome, "XDG_CONFIG_HOME": configHome, "XDG_STATE_HOME": stateHome,
            "XDG_RUNTIME_DIR": runtimeDir, "XDG_DATA_DIRS": systemData, "XDG_CONFIG_DIRS": systemConfig,
            "DISPLAY": ":99", "PATH": root + "/bin:/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8", "NO_COLOR": "1",
            // xdg-utils falls back to $BROWSER, then x-www-browser and friends on PATH, for a link no
            // handler takes: `false` ends that search, so no system browser ever starts.
            "BROWSER": "false",
        ]
        if let busAddress { env["DBUS_SESSION_BUS_ADDRESS"] = busAddress }
        for (k, v) in extraEnvironment { env[k] = v }
        return env.keys.sorted().map { $0 + "=" + env[$0]! }
    }

    /// A stand-in browser: a desktop entry whose program writes its argv,
    /// NUL-separated, to one new file per invocation.
    @discardableResult
    func addBrowser(_ id: String, execArguments: String = "--new-window %u", makeDefault: Bool = true) throws -> String
    {
        let script = root + "/bin/" + id.replacingDotsWithDashes
        try FileSystem.writeAtomically(
            script,
            text: """
                #!/bin/sh
                # Records argv exactly: one file per invocation, arguments NUL-separated.
                out="\(records)/\(id).$(date +%s%N).$$"
                for a in "$@"; do printf '%s\\0' "$a"; done > "$out.tmp" && mv "$out.tmp" "$out"

                """, permissions: 0o755)
        try FileSystem.writeAtomically(
            applications + "/" + id,
            text: """
                [Desktop Entry]
                Type=Application
                Name=Stand-in browser \(id)
                Exec=\(script) \(execArguments)
                MimeType=x-scheme-handler/http;x-scheme-handler/https;text/html;

                """, permissions: 0o644)
        if makeDefault { try setDefault(id, for: ["x-scheme-handler/http", "x-scheme-handler/https", "text/html"]) }
        return script
    }

    func setDefault(_ id: String, for types: [String]) throws {
        let current = try? FileSystem.readText(mimeappsList)
        try FileSystem.writeAtomically(
            mimeappsList, text: MimeApps.settingDefault(id, for: types, in: current), permissions: 0o644)
    }

    /// Every invocation of browser `id` so far, oldest first: its argv after the program.
    func invocations(_ id: String) -> [[String]] {
        FileSystem.list(records).filter { $0.hasPrefix(id + ".") && !$0.hasSuffix(".tmp") }.map { name in
            let bytes = (try? FileSystem.read(records + "/" + name)) ?? []
            return bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
                String(decoding: $0, as: UTF8.self)
            }
        }
    }

    /// The URLs browser `id` was asked to open (the last argument of each invocation).
    func opened(_ id: String) -> [String] { invocations(id).compactMap(\.last) }

    /// Waits until browser `id` has been asked `count` times.
    func waitForBrowser(_ id: String, count: Int = 1, timeoutMilliseconds: Int = 5000) -> [String] {
        eventually(timeoutMilliseconds: timeoutMilliseconds) { invocations(id).count >= count }
        return opened(id)
    }

    /// Runs a program in this desktop.
    func run(_ argv: [String], timeoutMilliseconds: Int = 30_000) throws -> Subprocess.Outcome {
        let outcome = try Subprocess.run(argv, environment: environment, timeoutMilliseconds: timeoutMilliseconds)
        SanitizerReport.check(outcome.errorText, from: FileSystem.baseName(argv[0]))
        return outcome
    }

    func linkctl(_ args: String..., timeoutMilliseconds: Int = 30_000) throws -> Subprocess.Outcome {
        try run([Paths.linkctl] + args, timeoutMilliseconds: timeoutMilliseconds)
    }

    func linkctl(_ args: [String], timeoutMilliseconds: Int = 30_000) throws -> Subprocess.Outcome {
        try run([Paths.linkctl] + args, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// `xdg-open URL`, the real one.
    func xdgOpen(_ url: String) throws -> Subprocess.Outcome { try run(["xdg-open", url]) }

    /// `gio open URL`, GLib's launcher.
    func gioOpen(_ url: String) throws -> Subprocess.Outcome { try run(["gio", "open", url]) }
}

extension String {
    var replacingDotsWithDashes: String { String(map { $0 == "." ? "-" : $0 }) }

    /// A query parameter's raw value from a URL (tests only).
    func queryValue(_ name: String) -> String? {
        guard let q = firstIndex(of: "?") else { return nil }
        for pair in self[index(after: q)...].split(separator: "&") where pair.hasPrefix(name + "=") {
            return String(pair.dropFirst(name.count + 1))
        }
        return nil
    }
}
