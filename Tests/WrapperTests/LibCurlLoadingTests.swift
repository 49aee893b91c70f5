import SystemKit
import Testing

@testable import HTTPKit

/// libcurl is dlopen()ed by the first HTTPClient: a process that makes none
/// never loads it, and one without it fails only there, saying why.
@Suite("libcurl loading")
struct LibCurlLoadingTests {
    /// Set in the child process `loadedOnFirstUse` starts; names the key log file.
    private static let childVariable = "LINKROUTER_TEST_LIBCURL_CHILD"

    @Test("a library that cannot be loaded: .unavailable, naming it and the Debian package, from HTTPClient.init too")
    func missingLibrary() throws {
        let library = LibCurl.load("libcurl-linkrouter-test-missing.so.4")
        guard case .failure(let error) = library else {
            Issue.record("a missing soname loaded")
            return
        }
        #expect(error.code == .unavailable)
        #expect(
            error.message.contains("libcurl-linkrouter-test-missing.so.4") && error.message.contains("libcurl4"),
            "\(error)")
        #expect(error.message.contains("cannot be loaded"), "\(error)")
        do throws(HTTPError) {
            _ = try HTTPClient(loop: EventLoop(), userAgent: "linkrouter-test/1", caFile: nil, library: library)
            Issue.record("a client was made without libcurl")
        } catch let thrown {
            #expect(thrown == error)
        }
    }

    @Test("a library without libcurl's functions is refused, naming the missing ones")
    func notLibCurl() {
        guard case .failure(let error) = LibCurl.load("libc.so.6") else {
            Issue.record("libc.so.6 was taken for libcurl")
            return
        }
        #expect(error.code == .unavailable)
        #expect(error.message.contains("libc.so.6 (Debian: libcurl4)"), "\(error)")
        #expect(
            error.message.contains("curl_global_init") && error.message.contains("curl_multi_socket_action"), "\(error)"
        )
    }

    /// Runs in a fresh process (this test binary again, with only this test
    /// selected): another test in this one may have made a client already.
    @Test(
        "libcurl is not mapped until the first client; SSLKEYLOGFILE is gone before it loads, and no TLS secret is written"
    )
    func loadedOnFirstUse() throws {
        if let keyFile = Environment.get(Self.childVariable) {
            try Self.childChecks(keyFile: keyFile)
            return
        }
        let directory = TemporaryDirectory("linkrouter-libcurl")
        let keyFile = directory.path + "/keys"
        let argv = [
            FileSystem.executablePath(), "--testing-library", "swift-testing", "--filter",
            "LibCurlLoadingTests/loadedOnFirstUse",
        ]
        let child = try Subprocess.run(
            argv,
            environment: Environment.entries(overriding: [Self.childVariable: keyFile, "SSLKEYLOGFILE": keyFile]),
            timeoutMilliseconds: 60_000)
        let output = child.text + child.errorText
        #expect(child.status == 0, "\(output)")
        #expect(output.contains("Test run with 1 test"), "the child ran something else: \(output)")
        #expect(!FileSystem.exists(keyFile), "libcurl wrote TLS secrets to SSLKEYLOGFILE")
    }

    private static func childChecks(keyFile: String) throws {
        #expect(Environment.get("SSLKEYLOGFILE") == keyFile)
        #expect(!libCurlMapped(), "libcurl is mapped before any HTTPClient was made")
        let loop = EventLoop()
        _ = try HTTPClient(loop: loop, userAgent: "linkrouter-test/1", caFile: nil)
        #expect(libCurlMapped(), "the first HTTPClient did not load libcurl")
        #expect(Environment.get("SSLKEYLOGFILE") == nil)
        // A TLS exchange, for libcurl to log its secrets if it had seen the variable. The server
        // starts after the first client, so it (Python's ssl) does not inherit the variable either.
        let server = try TestHTTPServer()
        let client = try HTTPClient(loop: loop, userAgent: "linkrouter-test/1", caFile: server.caFile)
        var outcome: Result<HTTPResponse, HTTPError>?
        client.send(.get(server.https + "/hello")) { outcome = $0 }
        let deadline = Clock.monotonicMilliseconds() + 10_000
        while outcome == nil && Clock.monotonicMilliseconds() < deadline { loop.turn(maxWaitMilliseconds: 1000) }
        #expect((try? outcome?.get())?.status == 200, "\(String(describing: outcome))")
        #expect(!FileSystem.exists(keyFile), "libcurl wrote TLS secrets to SSLKEYLOGFILE")
    }

    /// Whether libcurl.so.4 is in this process's memory map.
    private static func libCurlMapped() -> Bool {
        ((try? FileSystem.readText("/proc/self/maps", maxBytes: 1 << 24)) ?? "").contains("/libcurl.so.4")
    }
}
