import Glibc
import Testing

@testable import linkctl

/// `UTCTime` is arithmetic where linkctl once called `gmtime_r`: checked against glibc's `gmtime_r` and `strftime`.
@Suite("UTCTime")
struct UTCTimeTests {
    static func reference(_ seconds: Int64) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test(
        "the same text as gmtime_r for the epoch, day and leap-year boundaries, the 2038 and 9999 years, and 20,000 times drawn across 1970–2400"
    )
    func matchesGmtime() {
        var times: [Int64] = [
            0, 59, 60, 86_399, 86_400, 951_782_400, 951_868_799, 951_868_800, 2_147_483_647,
            2_147_483_648, 4_107_542_399, 4_107_542_400, 253_402_300_799, 1_796_515_677,
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 { times.append(Int64.random(in: 0...13_574_563_200, using: &generator)) }
        for t in times {
            #expect(UTCTime.rfc3339(t) == Self.reference(t), "\(t)")
        }
    }

    @Test(
        "before 1970: the days count back from the epoch, as gmtime_r counts them; a year before 1000 has four digits")
    func beforeTheEpoch() {
        for t: Int64 in [-1, -86_399, -86_400, -86_401, -2_208_988_800, -12_219_292_800] {
            #expect(UTCTime.rfc3339(t) == Self.reference(t), "\(t)")
        }
        // RFC 3339 writes four digits of year; strftime's %Y writes year 1 as "1".
        #expect(UTCTime.rfc3339(-62_135_596_800) == "0001-01-01T00:00:00Z")
    }
}
