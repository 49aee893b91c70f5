import LinkRouterCore
import Testing

@Suite("URI splitting (RFC 3986 Appendix B)")
struct URIReferenceTests {
    @Test("components are split without decoding")
    func components() throws {
        let u = try URIReference.split("com.example.app://host:8/p%61th;x?a=b&c=%20#frag")
        #expect(u.scheme == "com.example.app")
        #expect(u.authority == "host:8")
        #expect(u.path == "/p%61th;x")
        #expect(u.query == "a=b&c=%20")
        #expect(u.fragment == "frag")
        #expect(u.withoutFragment == "com.example.app://host:8/p%61th;x?a=b&c=%20")
        let v = try URIReference.split("com.example.app:/cb")
        #expect(v.authority == nil && v.path == "/cb" && v.query == nil && v.fragment == nil)
    }

    @Test(
        "relative references and option-looking strings are not URIs (U10)",
        arguments: [
            "--help", "-x", "cb?code=1&state=2", "/callback", "", ":nothing", "1abc:/x", "a b:/x", "?state=x",
        ])
    func relativeRefused(_ text: String) {
        #expect(throws: RouterError.self) { try URIReference.split(text) }
    }

    @Test("host and port ignore userinfo and brackets")
    func hostAndPort() throws {
        let u = try URIReference.split("https://user:pw@example.com:8443/x")
        #expect(u.host == "example.com")
        #expect(u.port == "8443")
        #expect(u.hasUserinfo)
        let v6 = try URIReference.split("http://[::1]:5000/cb")
        #expect(v6.host == "[::1]")
        #expect(v6.port == "5000")
        let noPort = try URIReference.split("http://[::1]/cb")
        #expect(noPort.port == nil)
        #expect(try URIReference.split("https://u:p@h/").port == nil)
    }

    @Test(
        "strict parsing names what is wrong (U4, U5, U6)",
        arguments: [
            ("com.example.app:/cb?code=a b&state=s", "a raw space"),
            ("com.example.app:/cb?code=a\tb&state=s", "a tab"),
            ("com.example.app:/cb?code=a\nb&state=s", "a line break"),
            ("com.example.app:/cb?code=a\u{0}b&state=s", "a NUL byte"),
            ("com.example.app:/cb?code=é&state=s", "a non-ASCII byte"),
            ("com.example.app:/cb?code=a%zz&state=s", "invalid percent-encoding"),
            ("com.example.app:/cb?code=a%F&state=s", "invalid percent-encoding"),
            ("com.example.app:/cb?state=%", "invalid percent-encoding"),
            ("com.example.app:/cb?code=<script>&state=s", "must be percent-encoded"),
            ("https:\\\\evil/cb", "must be percent-encoded"),
        ])
    func strictRefusals(_ text: String, _ words: String) {
        #expect {
            try URIReference.strict(text, maxLength: 8192)
        } throws: { error in
            (error as? RouterError)?.message.contains(words) == true
        }
    }

    @Test("strict parsing bounds the length (U6)")
    func length() throws {
        let long = "com.example.app:/cb?state=s&pad=" + String(repeating: "a", count: 9000)
        #expect {
            try URIReference.strict(long, maxLength: 8192)
        } throws: { error in
            (error as? RouterError)?.code == .limitsExceeded
        }
        _ = try URIReference.strict(String(long.prefix(8192)), maxLength: 8192)
    }
}
