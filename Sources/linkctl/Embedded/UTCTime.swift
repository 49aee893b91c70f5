/// A Unix time as the UTC timestamp kubectl's ExecCredential carries
/// (`2026-12-05T23:07:57Z`), by arithmetic rather than `gmtime_r`: linkctl's
/// front compiles this file too, and has no C library module but its own two
/// wrappers. The days-to-date step is Howard Hinnant's `civil_from_days`
/// (proleptic Gregorian, exact for every `Int64` second a token can carry).
public enum UTCTime {
    /// `YYYY-MM-DDTHH:MM:SSZ` for `seconds` since 1970-01-01 UTC.
    public static func rfc3339(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let second = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return digits(year, 4) + "-" + digits(month, 2) + "-" + digits(day, 2) + "T" + digits(second / 3_600, 2) + ":"
            + digits(second / 60 % 60, 2) + ":" + digits(second % 60, 2) + "Z"
    }

    /// `n` in decimal, zero-padded to `width` (a year before 1 AD keeps its sign).
    static func digits(_ n: Int64, _ width: Int) -> String {
        let text = String(n < 0 ? -n : n)
        let padded = String(repeating: "0", count: max(0, width - text.utf8.count)) + text
        return n < 0 ? "-" + padded : padded
    }
}
