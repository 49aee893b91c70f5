import Testing

@testable import LinkRouterCore

/// The managed policies `linkctl browser-policy` writes (`BrowserPolicy`), as documents.
@Suite("Browser policies")
struct BrowserPolicyTests {
    @Test(
        "Chromium's file: a scheme's entry added, replaced, another kept beside it, and removed (nothing left: an empty document, which linkctl deletes)"
    )
    func chromium() throws {
        let one = BrowserPolicy.chromium(nil, scheme: "com.example.app", origins: ["https://id.example.com"])
        #expect(BrowserPolicy.allowed(one).map(\.scheme) == ["com.example.app"])
        let two = BrowserPolicy.chromium(one, scheme: "org.example.other", origins: ["https://a.example"])
        let replaced = BrowserPolicy.chromium(
            two, scheme: "com.example.app", origins: ["https://id.example.com", "https://id2.example.com"])
        let allowed = BrowserPolicy.allowed(replaced)
        #expect(allowed.map(\.scheme) == ["org.example.other", "com.example.app"])
        #expect(allowed.last?.origins == ["https://id.example.com", "https://id2.example.com"])
        let removed = BrowserPolicy.chromium(replaced, scheme: "org.example.other", origins: nil)
        #expect(BrowserPolicy.allowed(removed).map(\.scheme) == ["com.example.app"])
        let empty = BrowserPolicy.chromium(removed, scheme: "com.example.app", origins: nil)
        #expect(empty.objectValue?.isEmpty == true)
    }

    @Test(
        "Firefox's policies.json: the administrator's other policies kept as they were; the scheme allowed from its origins and handed to the system's handler without asking; removed again to what was there"
    )
    func firefox() throws {
        let admin: JSONValue = .object([
            (
                "policies",
                .object([
                    ("DisableTelemetry", .bool(true)),
                    ("Handlers", .object([("mimeTypes", .object([("application/pdf", .object([]))]))])),
                ])
            )
        ])
        let doc = BrowserPolicy.firefox(admin, scheme: "com.example.app", origins: ["https://id.example.com"])
        let policies = try #require(doc["policies"])
        #expect(policies["DisableTelemetry"] == .bool(true))
        #expect(policies["Handlers"]?["mimeTypes"] != nil, "the administrator's handlers stay")
        #expect(policies["Handlers"]?["schemes"]?["com.example.app"]?["ask"] == .bool(false))
        #expect(policies["Handlers"]?["schemes"]?["com.example.app"]?["action"] == .string("useSystemDefault"))
        #expect(BrowserPolicy.allowed(doc).first?.origins == ["https://id.example.com"])
        let back = BrowserPolicy.firefox(doc, scheme: "com.example.app", origins: nil)
        #expect(back == admin, "\(back)")
    }

    @Test("origins: https (http only on a loopback host), a host and port, nothing after; lowercased")
    func origins() throws {
        #expect(try BrowserPolicy.origin("https://ID.Example.com") == "https://id.example.com")
        #expect(try BrowserPolicy.origin("https://id.example.com:8443/") == "https://id.example.com:8443")
        #expect(try BrowserPolicy.origin("http://127.0.0.1:4593") == "http://127.0.0.1:4593")
        for bad in [
            "http://id.example.com", "https://id.example.com/login", "https://u@id.example.com", "id.example.com",
            "https://id.example.com?x=1", "javascript:alert(1)",
        ] {
            #expect(throws: RouterError.self) { try BrowserPolicy.origin(bad) }
        }
    }
}
