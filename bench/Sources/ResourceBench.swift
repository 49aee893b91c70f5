import Glibc
import SystemKit

/// Issue 48's figures: a resource named only by its URL — the first token
/// (its metadata, the provider's discovery, a client registered, a sign-in,
/// the token) split by step; a cached `--for` token beside a cached
/// `token NAME`; `linkctl fetch` beside `curl` with `$(linkctl token NAME)`.
/// At a private Glewlwyd with open registration behind the tests' proxy
/// (which corrects its departures from RFC 7591), and the tests' stand-in
/// resource (`Fixtures/protected_resource.py`).
extension Bench {
    func resource() throws {
        say("resource: a token for a resource named by its URL, linkctl fetch")
        guard
            let (world, proxy) = try proxiedAccountWorld(
                "resource", lifetime: 3600, tools: ["/usr/bin/curl"], providerOptions: ["--registration"])
        else { return }
        // The proxy, the keyring, Glewlwyd and the daemon live until the section ends.
        defer { withExtendedLifetime((world, proxy)) {} }
        let w = world.w
        let portFile = w.root + "/resource.port"
        let server = try Subprocess.spawn(
            [
                "/usr/bin/python3", fixtures + "/protected_resource.py", "--provider", world.provider.infoPath, "--dir",
                w.root + "/resource", "--port-file", portFile,
            ], environment: w.environment, stdout: .null, stderr: .file(w.root + "/resource.err"))
        defer { Subprocess.stop(server, name: "the bench's protected_resource.py") }
        guard w.wait({ FileSystem.status(portFile) != nil }, milliseconds: 15_000) else {
            throw BenchError("protected_resource.py did not start")
        }
        let url = "http://127.0.0.1:\(try FileSystem.readText(portFile))/mcp"
        func must(_ argv: [String]) throws {
            let r = try w.run(argv)
            guard r.status == 0 else { throw BenchError("\(argv.joined(separator: " ")) failed: \(r.errorText)") }
        }
        // The first token, step by step: declared from the URL (metadata, discovery, a free port, the registration,
        // the keyring, the file), signed in (the provider's pages driven by the tests' script), the token asked.
        let declare = try Measure.ms { try must([bin + "/linkctl", "account", "add", "mcp", "--for", url]) }
        let signIn = try Measure.ms { try self.signIn(w, "mcp", providerInfo: world.provider.infoPath) }
        let first = try Measure.ms { try must([bin + "/linkctl", "token", "--for", url]) }
        row(
            "the first token for a resource named only by its URL: declared from its metadata with a client registered \(Measure.format(declare)) ms, a code-flow sign-in driven by the tests' script \(Measure.format(signIn)) ms, the token for it (one refresh) \(Measure.format(first)) ms; oidc-agent's `oidc-gen` registers only through its interactive prompts, so no peer figure",
            value: declare + signIn + first, unit: "ms", floor: nil, goal: "—", met: nil)
        let runs = n(200, 3)
        try must([bin + "/linkctl", "token", "mcp"])
        let (byURL, byName) = try Measure.interleaved(
            runs, { try must([bin + "/linkctl", "token", "--for", url]) },
            { try must([bin + "/linkctl", "token", "mcp"]) })
        row(
            "a cached `linkctl token --for URL` (the resource's metadata and the token in memory) beside a cached `linkctl token NAME` (median of \(runs))",
            value: byURL, unit: "ms", floor: byName, goal: "≤ 1.05×", met: byURL / byName <= 1.05)
        let curl = "curl -s -o /dev/null -H \"Authorization: Bearer $(\(bin)/linkctl token --for \(url))\" \(url)"
        let (fetch, piped) = try Measure.interleaved(
            runs, { try must(["/bin/sh", "-c", "\(bin)/linkctl fetch \(url) > /dev/null"]) },
            { try must(["/bin/sh", "-c", curl]) })
        row(
            "`linkctl fetch URL` (the token, the request, the answer) beside `curl -H \"Authorization: Bearer $(linkctl token --for URL)\" URL`, each through `sh -c` (median of \(runs))",
            value: fetch, unit: "ms", floor: piped, goal: "≤ 1.0×", met: fetch / piped <= 1.0)
    }
}
