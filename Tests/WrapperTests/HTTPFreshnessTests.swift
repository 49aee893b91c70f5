import HTTPKit
import Testing

@Suite("HTTP freshness")
struct HTTPFreshnessTests {
    /// RFC 9110 §5.6.7's example instant.
    static let example: Int64 = 784_111_777

    private func response(_ fields: [(String, String)], receivedAt: Int64 = example) -> HTTPResponse {
        HTTPResponse(status: 200, headers: HTTPHeaders(fields), body: [], receivedAt: receivedAt)
    }

    @Test("the three HTTP date forms name the same instant; anything else is nil")
    func dates() {
        for text in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(HTTPDate.parse(text, now: Self.example) == Self.example, "\(text)")
        }
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT", now: 0) == 0)
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 23:59:60 GMT", now: 0) == 1_835_481_600)
        for bad in [
            "", "0", "-1", "yesterday", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
        ] {
            #expect(HTTPDate.parse(bad, now: Self.example) == nil, "\(bad)")
        }
    }

    @Test("Cache-Control: directives without case, quoted values, first max-age wins, bad values are stale")
    func cacheControl() {
        #expect(CacheControl(parsing: ["public, max-age=300"]) == CacheControl(maxAge: 300))
        #expect(CacheControl(parsing: ["MAX-AGE=\"60\", No-Cache"]) == CacheControl(maxAge: 60, noCache: true))
        #expect(CacheControl(parsing: ["max-age=10", "max-age=20"]).maxAge == 10)
        #expect(CacheControl(parsing: ["private=\"a, max-age=1\", max-age=5"]).maxAge == 5)
        #expect(CacheControl(parsing: ["max-age=abc"]).maxAge == 0)
        #expect(CacheControl(parsing: ["max-age=-1"]).maxAge == 0)
        #expect(CacheControl(parsing: ["max-age=0000000000000099999999999"]).maxAge == 1 << 31)
        #expect(
            CacheControl(parsing: ["no-store, must-revalidate"]) == CacheControl(noStore: true, mustRevalidate: true))
        #expect(CacheControl(parsing: []) == CacheControl())
    }

    @Test("lifetime: max-age before Expires, less the age it arrived with; none given is nil")
    func lifetime() {
        let date = ("Date", "Sun, 06 Nov 1994 08:49:37 GMT")
        let inAnHour = ("Expires", "Sun, 06 Nov 1994 09:49:37 GMT")
        #expect(response([("Cache-Control", "max-age=300"), ("Age", "20")]).freshnessSeconds == 280)
        #expect(response([("Cache-Control", "max-age=300"), inAnHour, date]).freshnessSeconds == 300)
        #expect(response([date, inAnHour], receivedAt: Self.example + 10).freshnessSeconds == 3590)
        #expect(response([date, inAnHour, ("Age", "100")], receivedAt: Self.example + 10).freshnessSeconds == 3500)
        #expect(response([inAnHour], receivedAt: Self.example + 60).freshnessSeconds == 3540)
        #expect(response([date, ("Expires", "0")]).freshnessSeconds == 0)
        #expect(response([("Cache-Control", "max-age=30"), ("Age", "90")]).freshnessSeconds == 0)
        #expect(response([("Cache-Control", "no-store, max-age=300")]).freshnessSeconds == 0)
        #expect(response([("Cache-Control", "no-cache")]).freshnessSeconds == 0)
        #expect(response([date, ("Content-Type", "application/json")]).freshnessSeconds == nil)
    }

    @Test("header names compare without case; every value of a name is kept in order")
    func headers() {
        var h: HTTPHeaders = ["Content-Type": "application/json"]
        h.add("cache-control", "max-age=1")
        h.add("Cache-Control", "no-cache")
        #expect(h["CONTENT-TYPE"] == "application/json")
        #expect(h.values("Cache-Control") == ["max-age=1", "no-cache"])
        h.set("CACHE-control", "no-store")
        #expect(h.values("cache-control") == ["no-store"])
        #expect(response([("Content-Type", "Application/JSON ; charset=utf-8")]).mediaType == "application/json")
    }
}
