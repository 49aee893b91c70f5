import LinkRouterCore
import Testing

/// What `linkctl open` puts back of a launcher's decoding (KDE's KIO), and what it refuses.
@Suite("LinkIntake: links as launchers pass them")
struct LinkIntakeTests {
    @Test(
        "KIO's decodings are put back, up to hex case",
        arguments: [
            (
                "com.example.app:/callback?error=access_denied&error_description=The user denied access&state=abc",
                "com.example.app:/callback?error=access_denied&error_description=The%20user%20denied%20access&state=abc"
            ),
            ("com.example.app:/search?q=café au lait", "com.example.app:/search?q=caf%C3%A9%20au%20lait"),
            (
                "com.example.app:/a b/%2F/~A/café?q=1#frag x%2Fé",
                "com.example.app:/a%20b/%2F/~A/caf%C3%A9?q=1#frag%20x%2F%C3%A9"
            ),
            (
                "https://news.example/search?q=café au lait&a=%2F%26%3D#top x",
                "https://news.example/search?q=caf%C3%A9%20au%20lait&a=%2F%26%3D#top%20x"
            ),
            ("com.example.app:/e?x=€😀", "com.example.app:/e?x=%E2%82%AC%F0%9F%98%80"),
        ])
    func restores(_ decoded: String, _ original: String) {
        #expect(LinkIntake.restoringEncoding(decoded) == original)
        #expect((try? URIReference.strict(LinkIntake.restoringEncoding(decoded), maxLength: 8192)) != nil)
    }

    @Test(
        "a link with nothing decoded is the same string, byte for byte; restoring twice is restoring once",
        arguments: [
            "com.example.app:/callback?code=4%2F0AfKde-Code_1~x&state=abc", "com.example.app:/p?x=a+b&y=a%2Bb",
            "https://example.com:443/app/~user/?x=A",
            "com.example.app:/p?x=%2520",
        ])
    func untouched(_ link: String) {
        #expect(LinkIntake.restoringEncoding(link) == link)
        #expect(
            LinkIntake.restoringEncoding(LinkIntake.restoringEncoding("com.example.app:/a b"))
                == "com.example.app:/a%20b")
    }

    @Test("control characters are refused, not encoded: no launcher decodes them")
    func controls() {
        for bad in ["com.example.app:/cb?code=a\nb", "com.example.app:/cb?code=a\tb", "com.example.app:/cb?x=\u{7F}"] {
            #expect(LinkIntake.restoringEncoding(bad) == bad)
            #expect(LinkIntake.refusal(bad)?.contains("control character") == true)
        }
        #expect(LinkIntake.refusal("mailto:a@example.com")?.contains("does not handle") == true)
        #expect(LinkIntake.refusal("cb?code=x")?.contains("not an absolute URL") == true)
        #expect(LinkIntake.refusal("") != nil)
        #expect(LinkIntake.refusal("com.example.app:/cb?code=a%20b") == nil)
    }

    @Test("linkctl waits longer for the daemon than the daemon waits for an app")
    func timeouts() {
        #expect(LinkIntake.clientWaitMilliseconds > LinkIntake.appAnswerMilliseconds)
    }
}

extension LinkIntakeTests {
    @Test("the authority is left as it came: a host is the browser's to map (IDNA)")
    func authority() {
        #expect(LinkIntake.restoringEncoding("https://例え.jp/パス") == "https://例え.jp/%E3%83%91%E3%82%B9")
        #expect(LinkIntake.restoringEncoding("https://a b.example/x y") == "https://a b.example/x%20y")
        #expect(LinkIntake.restoringEncoding("com.example.app:é") == "com.example.app:%C3%A9")
    }

    @Test(
        "without a daemon: a web link that is no pending callback goes to the browser; a pending callback or any app link is queued"
    )
    func withoutDaemon() {
        let pending = ClaimedCallbacks(text: "https://example.com/cb\n")
        #expect(LinkIntake.withoutDaemon("https://example.com/page", pending: pending) == .browser)
        #expect(LinkIntake.withoutDaemon("https://example.com/cb?code=c&state=s", pending: pending) == .queue)
        #expect(LinkIntake.withoutDaemon("com.example.app:/cb?code=c&state=s", pending: pending) == .queue)
        #expect(LinkIntake.withoutDaemon("com.example.app:/open/1", pending: ClaimedCallbacks(keys: [])) == .queue)
    }

    @Test("a web link back from a browser linkrouter started is a loop; an app link is not")
    func loop() {
        #expect(LinkIntake.isLoop("https://example.com/", hopMarked: true))
        #expect(!LinkIntake.isLoop("https://example.com/", hopMarked: false))
        #expect(!LinkIntake.isLoop("com.example.app:/x", hopMarked: true))
    }
}
