import HTTPKit
import Testing

@Suite("Form URL encoding")
struct FormURLEncodingTests {
    @Test("RFC 6749 Appendix B's example")
    func appendixB() {
        #expect(FormURLEncoding.encode(" %&+\u{A3}\u{20AC}") == "+%25%26%2B%C2%A3%E2%82%AC")
    }

    @Test("only ALPHA, DIGIT, '-', '.', '_' stay bare; '*' and '~' are encoded (both readings decode them)")
    func unreserved() {
        #expect(FormURLEncoding.encode("AZaz09-._") == "AZaz09-._")
        #expect(FormURLEncoding.encode("*~") == "%2A%7E")
        #expect(FormURLEncoding.encode("\u{0}\n=&/?#") == "%00%0A%3D%26%2F%3F%23")
    }

    @Test("pairs keep their order, joined by '&'; empty names and values survive")
    func pairs() {
        let body = FormURLEncoding.encode([("b", "2"), ("a", ""), ("", "x y"), ("a", "1")])
        #expect(body == Array("b=2&a=&=x+y&a=1".utf8))
        #expect(FormURLEncoding.encode([]).isEmpty)
    }
}
