/// HTTP dates (RFC 9110 §5.6.7) as Unix seconds, for `Date` and `Expires`.
/// Recipients must accept all three forms; senders use the first.
///
///     Sun, 06 Nov 1994 08:49:37 GMT     IMF-fixdate
///     Sunday, 06-Nov-94 08:49:37 GMT    obsolete RFC 850
///     Sun Nov  6 08:49:37 1994          obsolete asctime
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Unix seconds, or nil for anything else. `now` places RFC 850's two-digit
    /// years: one more than 50 years ahead of `now` is taken from the century before.
    public static func parse(_ text: String, now: Int64) -> Int64? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        switch words.count {
        case 6 where words[5] == "GMT":
            return make(year: Int(words[3]), month: words[2], day: Int(words[1]), time: words[4])
        case 4 where words[3] == "GMT":
            let dmy = words[1].split(separator: "-").map(String.init)
            guard dmy.count == 3, dmy[2].count == 2, let yy = Int(dmy[2]) else { return nil }
            let thisYear = Int(1970 + now / 31_556_952)
            var year = thisYear - thisYear % 100 + yy
            if year > thisYear + 50 { year -= 100 }
            return make(year: year, month: dmy[1], day: Int(dmy[0]), time: words[2])
        case 5:
            return make(year: Int(words[4]), month: words[1], day: Int(words[2]), time: words[3])
        default:
            return nil
        }
    }

    private static func make(year: Int?, month: String, day: Int?, time: String) -> Int64? {
        let hms = time.split(separator: ":").map { $0.count == 2 ? Int($0) : nil }
        guard let year, (1...9999).contains(year), let m = months.firstIndex(of: month.lowercased()),
            let day, (1...31).contains(day), hms.count == 3, let h = hms[0], let min = hms[1], let s = hms[2],
            (0...23).contains(h), (0...59).contains(min), (0...60).contains(s)
        else { return nil }
        return daysFromCivil(year: Int64(year), month: Int64(m + 1), day: Int64(day)) * 86_400
            + Int64(h * 3600 + min * 60 + s)
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
