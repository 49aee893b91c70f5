/// Finding one byte eight bytes at a time, for the restore's flow reader: a
/// stored flow is ~300 bytes of lines, and a byte-by-byte walk to each line's
/// end was ~2.4 k instructions a row (bench: start-up with 10,000 sessions).
/// The core imports nothing, so this is the word-at-a-time test `memchr` uses.
enum ByteScan {
    /// The index of the first `byte` in `bytes` at or after `from`, or `bytes.count`.
    static func index(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        let n = bytes.count
        guard let base = bytes.baseAddress else { return n }
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let pattern = ones &* UInt64(byte)
        var i = from
        while i + 8 <= n {
            // A zero byte in `word ^ pattern` is a match; the lowest flagged
            // byte is the first (little-endian), and no false flag comes before it.
            let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self).littleEndian ^ pattern
            let found = (x &- ones) & ~x & highs
            if found != 0 { return i + found.trailingZeroBitCount / 8 }
            i += 8
        }
        while i < n && base[i] != byte { i += 1 }
        return i
    }
}
