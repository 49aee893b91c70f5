import Freedesktop
import Testing

@Suite("Exec lines (Desktop Entry spec, The Exec key)")
struct ExecLineTests {
    func expand(_ exec: String, _ url: String = "https://x/?a=1&b=2") throws -> [String] {
        try ExecLine.expand(exec, url: url, name: "Browser", icon: "web", desktopFilePath: "/apps/b.desktop")
    }

    @Test("field codes")
    func fieldCodes() throws {
        #expect(try expand("firefox %u") == ["firefox", "https://x/?a=1&b=2"])
        #expect(try expand("chromium --new-window %U") == ["chromium", "--new-window", "https://x/?a=1&b=2"])
        #expect(try expand("b %i %c %k") == ["b", "--icon", "web", "Browser", "/apps/b.desktop", "https://x/?a=1&b=2"])
        #expect(try expand("b --url=%u") == ["b", "--url=https://x/?a=1&b=2"])
        #expect(try expand("b 100%% %d %u") == ["b", "100%", "https://x/?a=1&b=2"])
        #expect(try expand("b") == ["b", "https://x/?a=1&b=2"])
    }

    @Test("quoting and escapes; field codes are not expanded inside quotes")
    func quoting() throws {
        #expect(
            try expand(#""/opt/My Browser/b" --x "a \"q\" \$ \\ \`" %u"#) == [
                "/opt/My Browser/b", "--x", #"a "q" $ \ `"#, "https://x/?a=1&b=2",
            ])
        #expect(try expand(#"b "%u" %u"#) == ["b", "%u", "https://x/?a=1&b=2"])
        #expect(try expand(#"b "50%%""#) == ["b", "50%", "https://x/?a=1&b=2"])
    }

    @Test(
        "URLs with shell metacharacters stay one argument, byte for byte (E1)",
        arguments: [
            "https://x/;id", "https://x/$(id)", "https://x/`id`", "https://x/'\"", "https://x/%20 %u", "https://x/a b",
            "https://x/\nnew", "https://x/*?.|&>",
        ])
    func metacharacters(_ url: String) throws {
        #expect(try expand("b %u", url) == ["b", url])
    }

    @Test("invalid Exec lines are errors", arguments: [#"b "unterminated"#, "b %u %U", "b %z", "b %", #"b "\q""#, ""])
    func invalid(_ exec: String) {
        #expect(throws: ExecLineError.self) { try expand(exec) }
    }

    @Test(
        "quote() round-trips through split()",
        arguments: ["/usr/bin/linkctl", "/opt/with space/linkctl", #"/odd/"q"$`\%"#, ""])
    func quote(_ arg: String) throws {
        let words = try ExecLine.split(ExecLine.quote(arg) + " open -- %u")
        #expect(words.first?.text.replacingPercents() == arg)
        #expect(words.map(\.text).dropFirst() == ["open", "--", "%u"])
    }
}

extension String {
    fileprivate func replacingPercents() -> String {
        var out = ""
        var it = makeIterator()
        while let c = it.next() {
            if c == "%", let n = it.next() {
                out.append(n == "%" ? "%" : c)
                if n != "%" { out.append(n) }
            } else {
                out.append(c)
            }
        }
        return out
    }
}
