import Freedesktop
import Testing

@Suite("Key files (Desktop Entry spec, basic format)")
struct KeyFileTests {
    let sample = """
        # a comment
        [Default Applications]
        text/html=firefox.desktop;
        x-scheme-handler/https = chromium.desktop;firefox.desktop;

        [Added Associations]
        x-scheme-handler/https=firefox.desktop;
        """

    @Test("values by group and key; first wins; spaces around = ignored")
    func read() {
        let f = KeyFile(parsing: sample)
        #expect(f.groups == ["Default Applications", "Added Associations"])
        #expect(f.value("text/html", in: "Default Applications") == "firefox.desktop;")
        #expect(f.value("x-scheme-handler/https", in: "Default Applications") == "chromium.desktop;firefox.desktop;")
        #expect(f.value("x-scheme-handler/https", in: "Added Associations") == "firefox.desktop;")
        #expect(f.value("missing", in: "Default Applications") == nil)
    }

    @Test("editing keeps comments and other entries")
    func edit() {
        var f = KeyFile(parsing: sample)
        f.set("text/html", to: "other.desktop;", in: "Default Applications")
        f.set("x-scheme-handler/com.example.app", to: "linkrouter-com.example.app.desktop;", in: "Default Applications")
        f.set("k", to: "v", in: "New Group")
        f.remove("x-scheme-handler/https", in: "Added Associations")
        let again = KeyFile(parsing: f.text)
        #expect(f.text.hasPrefix("# a comment\n[Default Applications]\ntext/html=other.desktop;\n"))
        #expect(
            again.value("x-scheme-handler/com.example.app", in: "Default Applications")
                == "linkrouter-com.example.app.desktop;")
        #expect(
            again.value("x-scheme-handler/https", in: "Default Applications") == "chromium.desktop;firefox.desktop;")
        #expect(again.value("x-scheme-handler/https", in: "Added Associations") == nil)
        #expect(again.value("k", in: "New Group") == "v")
    }

    @Test("string escapes and lists")
    func escapes() {
        #expect(KeyFile.unescape(#"a\sb\nc\td\\e\q"#) == "a b\nc\td\\e\\q")
        #expect(KeyFile.list("a;b\\;c;;d") == ["a", "b;c", "d"])
        #expect(KeyFile.list("") == [])
    }
}
