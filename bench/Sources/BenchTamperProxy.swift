import Glibc
import JSONKit
import LinkRouterCore
import SystemKit

/// The tests' tamper proxy (`Fixtures/tamper_provider.py`) in front of a
/// bench's Glewlwyd: honest, but able to hold the provider's token answer
/// (`hold-token-answer`) until `release()`, as a slow provider would.
final class BenchTamperProxy {
    let pid: Int32
    let origin: String
    private let modeFile: String
    private let requestsLog: String
    private let upstreamFile: String
    private let releaseFile: String

    init(_ w: BenchWorld, fixtures: String) throws {
        let out = w.root + "/tamper.json"
        upstreamFile = w.root + "/tamper-upstream"
        pid = try Subprocess.spawn(
            [
                "/usr/bin/python3", fixtures + "/tamper_provider.py", "--upstream-file", upstreamFile, "--port", "0",
                "--dir", w.root + "/tamper",
            ], environment: w.environment, stdout: .file(out), stderr: .file(w.root + "/tamper.err"))
        guard w.wait({ ((try? FileSystem.readText(out)) ?? "").hasSuffix("\n") }, milliseconds: 20_000),
            let info = try? JSONParser.parse(Array(FileSystem.readText(out).utf8)),
            let origin = info["origin"]?.stringValue, let mode = info["mode_file"]?.stringValue,
            let log = info["requests_log"]?.stringValue
        else {
            Subprocess.stop(pid, name: "the bench's tamper_provider.py")
            throw BenchError(
                "tamper_provider did not start: \((try? FileSystem.readText(w.root + "/tamper.err")) ?? "")")
        }
        self.origin = origin
        modeFile = mode
        requestsLog = log
        releaseFile = FileSystem.directoryName(mode) + "/release"
    }

    /// Requests go to the provider's own origin from now on.
    func connect(upstream: String) throws {
        try FileSystem.writeAtomically(upstreamFile, text: upstream + "\n", permissions: 0o644)
    }

    func set(_ mode: String) throws { try FileSystem.writeAtomically(modeFile, text: mode + "\n", permissions: 0o644) }

    /// The held answers go out (and later ones are not held, until `unrelease`).
    func release() throws { try FileSystem.writeAtomically(releaseFile, text: "", permissions: 0o644) }
    func unrelease() throws { try? FileSystem.remove(releaseFile) }

    /// Token answers the provider gave that the proxy held.
    func heldCount() -> Int {
        ((try? FileSystem.readText(requestsLog, maxBytes: 1 << 24)) ?? "").split(separator: "\n").count {
            $0.contains("\"held\": true")
        }
    }

    /// Refresh requests (`grant_type=refresh_token`) the proxy has passed to the provider.
    func refreshRequests() -> Int {
        ((try? FileSystem.readText(requestsLog, maxBytes: 1 << 24)) ?? "").split(separator: "\n").count {
            $0.contains("\"grant_type\": \"refresh_token\"")
        }
    }

    deinit { Subprocess.stop(pid, name: "the bench's tamper_provider.py") }
}
