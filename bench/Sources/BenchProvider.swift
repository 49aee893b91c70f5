import Glibc
import JSONKit
import LinkRouterCore
import SystemKit

/// A private Glewlwyd for a bench section (the tests' `glewlwyd_provider.py`),
/// stopped when the value goes; `info` is the JSON line the fixture printed.
final class BenchProvider {
    let pid: Int32
    let info: JSONValue
    let infoPath: String

    /// `options`: more of the fixture's options (`--dpop allowed`, `--device 600`, …).
    init(_ w: BenchWorld, fixtures: String, redirectURIs: [String], options: [String] = []) throws {
        infoPath = w.root + "/glewlwyd.json"
        pid = try Subprocess.spawn(
            ["/usr/bin/python3", fixtures + "/glewlwyd_provider.py", "--dir", w.root + "/glewlwyd"]
                + redirectURIs.flatMap { ["--redirect-uri", $0] } + options,
            environment: w.environment, stdout: .file(infoPath), stderr: .file(w.root + "/glewlwyd.err"))
        let path = infoPath
        guard w.wait({ ((try? FileSystem.readText(path)) ?? "").hasSuffix("\n") }, milliseconds: 30_000),
            let parsed = try? JSONParser.parse(Array(FileSystem.readText(path).utf8))
        else {
            kill(pid, SIGTERM)
            Subprocess.wait(pid)
            throw BenchError("glewlwyd did not start: \((try? FileSystem.readText(w.root + "/glewlwyd.err")) ?? "")")
        }
        info = parsed
    }

    func string(_ key: String) throws -> String {
        guard let v = info[key]?.stringValue else { throw BenchError("glewlwyd's line has no \(key)") }
        return v
    }

    deinit {
        Subprocess.stop(pid, name: "the bench's glewlwyd_provider.py")
    }
}
