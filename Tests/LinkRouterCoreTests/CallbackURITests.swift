import LinkRouterCore
import Testing

@Suite("Callback rules (STX, RFC 8252 §7)")
struct CallbackURITests {
    @Test(
        "the three styles are accepted",
        arguments: [
            ("com.example.app:/callback", CallbackURI.Style.customScheme),
            ("com.example.app://callback", .customScheme),
            ("no.vipps.merchant:/cb?app=1", .customScheme),
            ("https://example.com/app/callback", .claimedHTTPS),
            ("https://example.com:8443/cb", .claimedHTTPS),
            ("http://127.0.0.1/callback", .loopback),
            ("http://[::1]/callback", .loopback),
            ("http://localhost/callback", .loopback),
            ("http://127.0.0.1:0/callback", .loopback),
            ("http://127.0.0.1:8080/callback?x=1", .loopback),
        ])
    func accepted(_ text: String, _ style: CallbackURI.Style) throws {
        let c = try CallbackURI.parse(text, role: "redirect_uri")
        #expect(c.style == style)
        #expect(c.string == text)
    }

    @Test(
        "refused schemes, forms and parts",
        arguments: [
            ("myapp://callback", "not reverse-domain"),
            ("myapp:/callback", "not reverse-domain"),
            ("javascript:alert(1)", "never an app's own scheme"),
            ("data:text/html,x", "never an app's own scheme"),
            ("file:///etc/passwd", "never an app's own scheme"),
            ("http://example.com/callback", "not loopback"),
            ("http://127.0.0.2/callback", "not loopback"),
            ("http://user@127.0.0.1/cb", "not loopback"),
            ("https://user@example.com/cb", "userinfo"),
            ("https:///cb", "no host"),
            ("https://example.com", "no path"),
            ("com.example.app:/callback#x", "fragment"),
            ("com.example.app:/callback#", "fragment"),
            ("com.example.app:", "nothing after the scheme"),
            (".example.app:/cb", "invalid scheme"),
            ("com..app:/cb", "not reverse-domain"),
            ("com.example.app:/cb?state=1", "reserved"),
            ("com.example.app:/cb?code=1", "reserved"),
            ("com.example.app:/c b", "raw space"),
            ("http://127.0.0.1:99999/cb", "invalid port"),
            ("http://127.0.0.1:x/cb", "invalid port"),
        ])
    func refused(_ text: String, _ words: String) {
        #expect {
            try CallbackURI.parse(text, role: "redirect_uri")
        } throws: { error in
            let e = error as? RouterError
            return e?.code == .invalidArgument && e?.message.contains(words) == true
        }
    }

    @Test("a custom scheme is recognised for registration")
    func customSchemeCheck() {
        #expect(CallbackURI.isCustomScheme("com.example.app"))
        #expect(CallbackURI.isCustomScheme("no.vipps-merchant.app2"))
        for bad in ["https", "http", "myapp", "com.", ".com", "com..app", "1com.app", "com.ex ample", "javascript", ""]
        {
            #expect(!CallbackURI.isCustomScheme(bad), "\(bad)")
        }
    }

    @Test("a loopback callback gets the bound port and keeps the host the app wrote (issue 13 §3)")
    func bound() throws {
        let c = try CallbackURI.parse("http://localhost/callback?x=1", role: "redirect_uri")
        let b = c.bound(port: 43123)
        #expect(b.string == "http://localhost:43123/callback?x=1")
        #expect(b.matchKey == "http:localhost/callback")
        #expect(
            b.loopbackBinding
                == LoopbackBinding(addresses: ["127.0.0.1", "::1"], hostLiteral: "localhost", port: 43123))
        let v6 = try CallbackURI.parse("http://[::1]/cb", role: "redirect_uri").bound(port: 5)
        #expect(v6.string == "http://[::1]:5/cb" && v6.loopbackBinding?.addresses == ["::1"])
    }
}

@Suite("Exact callback match, with the difference named (U8)")
struct CallbackMatchTests {
    let registered = try! CallbackURI.parse("com.example.app:/cb", role: "redirect_uri")

    func mismatch(_ text: String, against r: CallbackURI? = nil) throws -> String? {
        let u = try URIReference.strict(text, maxLength: 8192)
        return (r ?? registered).mismatch(with: u, query: try QueryParameters.parse(u.query))
    }

    @Test("the registered URI with response parameters matches; scheme case does not matter")
    func matches() throws {
        #expect(try mismatch("com.example.app:/cb?code=1&state=2") == nil)
        #expect(try mismatch("COM.EXAMPLE.APP:/cb?code=1&state=2") == nil)
        #expect(try mismatch("com.example.app:/cb?code=1&state=2#_=_") == nil)
    }

    @Test(
        "each variant is refused with its difference named",
        arguments: [
            ("com.example.app:/cb/?state=s", "trailing slash"),
            ("com.example.app:/CB?state=s", "letter case"),
            ("com.example.app:/%63b?state=s", "percent-encoding"),
            ("com.example.app:/cb;x?state=s", "differs from the registered \"/cb\""),
            ("com.example.app://cb?state=s", "has an authority"),
            ("com.example.app:/./cb?state=s", "dot segments"),
            ("com.example.app:/a/../cb?state=s", "dot segments"),
            ("com.other.app:/cb?state=s", "scheme"),
        ])
    func variants(_ text: String, _ words: String) throws {
        let m = try #require(try mismatch(text))
        #expect(m.contains(words), "\(m)")
    }

    @Test("a registered query must come back byte for byte")
    func ownQuery() throws {
        let r = try CallbackURI.parse("com.example.app:/cb?app=x%20y&v=1", role: "redirect_uri")
        #expect(try mismatch("com.example.app:/cb?app=x%20y&v=1&code=c&state=s", against: r) == nil)
        #expect(try mismatch("com.example.app:/cb?code=c&v=1&state=s&app=x%20y", against: r) == nil)
        #expect(
            try mismatch("com.example.app:/cb?app=x+y&v=1&state=s", against: r)?.contains("percent-encoding") == true)
        #expect(try mismatch("com.example.app:/cb?v=1&state=s", against: r)?.contains("missing") == true)
        #expect(try mismatch("com.example.app:/cb?app=x%20y&v=2&state=s", against: r)?.contains("\"2\"") == true)
        #expect(try mismatch("com.example.app:/cb?app=x%20y&v=1&v=1&state=s", against: r)?.contains("2 times") == true)
    }

    @Test("a loopback callback matches on any port, nothing else relaxed")
    func loopback() throws {
        let r = try CallbackURI.parse("http://127.0.0.1/callback", role: "redirect_uri")
        #expect(try mismatch("http://127.0.0.1:5555/callback?code=1&state=2", against: r) == nil)
        #expect(try mismatch("http://127.0.0.1/callback?code=1&state=2", against: r) == nil)
        #expect(try mismatch("http://localhost:5555/callback?state=2", against: r) != nil)
        #expect(try mismatch("http://127.0.0.1:5555/callback/?state=2", against: r) != nil)
        #expect(try mismatch("https://127.0.0.1:5555/callback?state=2", against: r) != nil)
    }

    @Test(
        "claimed https look-alikes never match (U9)",
        arguments: [
            "https://example.com@evil/cb?state=s", "https://example.com.evil/cb?state=s",
            "https://evil/example.com/cb?state=s",
            "https://example.com:443/cb?state=s", "http://example.com/cb?state=s",
            "https://xn--exmple-cua.com/cb?state=s",
        ])
    func lookAlikes(_ text: String) throws {
        let r = try CallbackURI.parse("https://example.com/cb", role: "redirect_uri")
        #expect(try mismatch(text, against: r) != nil)
    }
}
